import Foundation
import Logging
import SKANCollector
import SKANStore
import SKANStorePostgres
import SKANTestSupport
import Testing

/// The collector's service group runs its store's periodic jobs (issue 31: the refusal cap is a worker of the one
/// group, not a task the store starts).
@Suite("Collector runs its store's jobs", .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"))
struct PostgresCollectorJobTests {
    @Test("refusals past the cap are cut by the job the collector's group runs", .timeLimit(.minutes(1)))
    func refusalCap() async throws {
        let server = try #require(PostgresTestServer.shared)
        let url = try server.makeDatabase()
        let store = PostgresPostbackStore(try PostgresStoreConfiguration(url: url), rejectionCap: RejectionCap(maximumRows: 2),
                                          capInterval: .milliseconds(50))
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let collector = try Collector(configuration: CollectorConfiguration(port: 0), store: store,
                                      verifier: TestPostbacks.verifier, logger: logger)
        let rows: @Sendable () throws -> Int? = { Int(try server.psql(url, "SELECT count(*) FROM rejected_postbacks").trimmingCharacters(in: .whitespacesAndNewlines)) }
        let kept = try await collector.composition().serve { bound in
            let device = try #require(bound["device"])
            for index in 0..<6 {
                let reply = try await RawHTTP.exchange(port: device, RawHTTP.post("{\"refused\": \(index)", path: "/postbacks")
                                                       + "", responses: 1)
                #expect(reply.hasPrefix("HTTP/1.1 400"), "\(reply)")
            }
            for _ in 0..<500 where try rows() != 2 { try await Task.sleep(for: .milliseconds(20)) }
            return try rows()
        }
        #expect(kept == 2)
    }
}
