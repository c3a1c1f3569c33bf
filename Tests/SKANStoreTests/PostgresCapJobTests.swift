import Foundation
import SKANStore
import SKANStorePostgres
import SKANTestSupport
import Testing

/// The refusal cap's periodic job runs where the store's host runs it (issue 31: no unstructured tasks in the
/// engines), not in a task the store starts for itself.
@Suite("PostgreSQL refusal cap as a hosted job")
struct PostgresCapJobTests {
    @Test("the store runs no job of its own; hosted, the job cuts the refusals to the cap within its interval",
          .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"), .timeLimit(.minutes(1)))
    func hosted() async throws {
        let server = try #require(PostgresTestServer.shared)
        let url = try server.makeDatabase()
        let store = try await PostgresPostbackStore.open(try PostgresStoreConfiguration(url: url),
                                                         rejectionCap: RejectionCap(maximumRows: 2), capInterval: .milliseconds(50))
        try await StoreHost.running([store]) {
            _ = try await store.write((0..<6).map { _ in StatCounterTests.rejected("malformed") })
            let rows = { Int(try server.psql(url, "SELECT count(*) FROM rejected_postbacks").trimmingCharacters(in: .whitespacesAndNewlines)) }
            // Ten of its intervals with no host: nothing cut the table (before, a task the store started did).
            try await Task.sleep(for: .milliseconds(500))
            #expect(try rows() == 6)
            #expect(store.periodicJobs.map(\.name) == ["the PostgreSQL refusal cap's job"])
            try await StoreJob.running(store.periodicJobs, failed: { _, error in Issue.record("\(error.reason)") }) {
                let deadline = ContinuousClock.now + .seconds(10)
                while try rows() != 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(try rows() == 2)
            try await store.close()
        }
    }
}
