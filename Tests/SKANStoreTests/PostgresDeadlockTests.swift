import Foundation
import Logging
import PostgresNIO
import SKANStore
@testable import SKANStorePostgres
import SKANTestSupport
import Testing

/// A batch PostgreSQL picks as a deadlock's victim is run again, not answered 503 (issue 32: two collectors given
/// the same postbacks met `deadlock detected (40P01)`).
@Suite("PostgreSQL deadlocks", .serialized)
struct PostgresDeadlockTests {
    @Test("a batch chosen as a deadlock's victim runs again and stores its postbacks",
          .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"),
          .timeLimit(.minutes(1)))
    func victimRunsAgain() async throws {
        let server = try #require(PostgresTestServer.shared)
        let configuration = try PostgresStoreConfiguration(url: try server.makeDatabase())
        let (template, body) = TestPostbacks.verified()
        let (a, b) = (PostgresBatchOrderTests.accepted(template, body, dedupID: "deadlock-a"),
                      PostgresBatchOrderTests.accepted(template, body, dedupID: "deadlock-b"))
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        // Another writer, on a connection of its own: it holds b, uncommitted.
        let other = try await PostgresConnection.connect(
            configuration: .init(host: configuration.host, port: configuration.port, username: configuration.user,
                                 password: configuration.password, database: configuration.database, tls: .disable),
            id: 1, logger: logger)
        // PostgreSQL looks for a cycle once, deadlock_timeout after a wait began: the store's sessions look after 2 s
        // (time enough for the other writer to start waiting too, however loaded the machine), the other writer's
        // after 10 s, so the store's batch is the one that finds the cycle and is rolled back.
        try await other.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \"\(configuration.database)\" SET deadlock_timeout = '2s'"),
                              logger: logger)
        try await other.query("SET deadlock_timeout = '10s'", logger: logger)
        let store = try await PostgresPostbackStore.open(configuration)
        try await StoreHost.running([store]) {
            try await other.query("BEGIN", logger: logger)
            try await Self.insert(b, on: other, logger: logger)

            // The store's batch locks a (key order), then waits for b.
            async let written = store.write([a, b])
            while try await Self.waiting(on: other, logger: logger) == 0 {  // the store's batch waits for b
                try await Task.sleep(for: .milliseconds(20))
            }
            // The other writer now asks for a: a cycle. The store's batch finds it (after its deadlock_timeout) and is
            // rolled back whole; the other writer then gets a, and lets both go.
            let otherGotA: Bool
            do {
                try await Self.insert(a, on: other, logger: logger)
                otherGotA = true
            } catch {
                otherGotA = false
            }
            try await other.query("ROLLBACK", logger: logger)
            try await other.close()

            // Without the retry the write threw "deadlock detected (40P01)".
            let outcomes = try await written
            #expect(otherGotA, "the other writer was the victim: the store's batch was never refused")
            #expect(outcomes == [.stored, .stored])
            #expect(try await store.stats().postbacks == 2)
            try await store.close()
        }
    }

    /// Inserts `entry` as a batch of one, as a collector's insert does (`BatchInsert`).
    static func insert(_ entry: StoreEntry, on connection: PostgresConnection, logger: Logger) async throws {
        guard case .accepted(let postback) = entry else { return }
        let rows = BatchRows([(PostbackTable.uniqueKey.map { $0.value(postback) }, postback)])
        for try await _ in try await connection.execute(BatchInsert(collector: "other", rows: rows), logger: logger) {}
    }

    /// How many sessions wait for a lock `connection`'s session holds (read live from the lock manager; other tests
    /// on the same server wait for locks of their own).
    static func waiting(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        var count = 0
        for try await value in try await connection.query("""
            SELECT count(*)::bigint FROM pg_locks WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))
            """, logger: logger).decode(Int.self) {
            count = value
        }
        return count
    }
}
