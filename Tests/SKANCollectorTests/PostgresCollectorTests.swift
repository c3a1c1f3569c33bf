import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SKANCollector
import SKANCore
import SKANStore
import SKANStorePostgres
import SKANTestSupport
import Testing

/// Collectors on PostgreSQL: several behind one database, and one whose database restarts under it.
@Suite("Collectors on PostgreSQL", .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"))
struct PostgresCollectorTests {
    /// A collector over its own store (its own pool) on the database at `url`, its writer running.
    static func withCollector<T: Sendable>(_ url: String,
                                           _ test: @escaping @Sendable (Collector, any TestClientProtocol) async throws -> T)
        async throws -> T {
        let store = try await PostgresPostbackStore.open(try PostgresStoreConfiguration(url: url))
        // The store's pool runs beside the test, as a service group would run it.
        return try await StoreHost.running([store]) {
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let collector = try Collector(configuration: CollectorConfiguration(port: 0), store: store,
                                          verifier: TestPostbacks.verifier, logger: logger)
            let result = try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { await collector.writer.run(); return nil }
                let result = try await collector.application().test(.router) { client in try await test(collector, client) }
                collector.writer.finish()
                try await group.waitForAll()
                return result
            }
            try await store.close()
            return result
        }
    }

    /// Posts every body, a few at a time, and returns each reply's status word in the bodies' order.
    static func postAll(_ bodies: [[UInt8]], to client: any TestClientProtocol) async throws -> [String] {
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var replies = Array(repeating: "", count: bodies.count)
            var next = 0
            func add() {
                let index = next, body = bodies[index]
                next += 1
                group.addTask {
                    // As a device does: a 503 (a store call past its deadline on a loaded machine) is sent again.
                    var reply = try await CollectorHarness.post(client, body)
                    for _ in 0..<5 where reply.status == 503 { reply = try await CollectorHarness.post(client, body) }
                    return (index, reply.status == 200 ? (CollectorHarness.json(reply.body)["status"] as? String ?? "?") : "\(reply.status)")
                }
            }
            while next < min(32, bodies.count) { add() }
            while let (index, status) = try await group.next() {
                replies[index] = status
                if next < bodies.count { add() }
            }
            return replies
        }
    }

    @Test("two collectors given the same 2,000 postbacks at once store each exactly once, and count them exactly")
    func twoCollectors() async throws {
        let server = try #require(PostgresTestServer.shared)
        let url = try server.makeDatabase()
        let bodies = (0..<2_000).map { _ in Array(TestPostbacks.postback().json.utf8) }
        let replies = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<2 {
                group.addTask { try await Self.withCollector(url) { _, client in try await Self.postAll(bodies, to: client) } }
            }
            var replies: [[String]] = []
            for try await each in group { replies.append(each) }
            return replies
        }
        // Every postback ends with a 200 at both collectors and is accepted by at most one. (A 503 whose commit went
        // through before its deadline fired is answered duplicate on the retry: then neither says accepted, and the
        // row count below is what proves the postback was kept.)
        for index in bodies.indices {
            let pair = [replies[0][index], replies[1][index]]
            #expect(pair.allSatisfy { $0 == "accepted" || $0 == "duplicate" }, "postback \(index): \(pair)")
            #expect(pair.filter { $0 == "accepted" }.count <= 1, "postback \(index): \(pair)")
        }
        #expect(replies[0].filter { $0 == "accepted" }.count + replies[1].filter { $0 == "accepted" }.count > 1_900)
        #expect(try server.psql(url, "SELECT count(*) FROM postbacks").trimmingCharacters(in: .whitespacesAndNewlines) == "2000")
        let store = try await PostgresPostbackStore.open(try PostgresStoreConfiguration(url: url))
        try await StoreHost.running([store]) {
            #expect(try await store.stats().postbacks == 2_000)
            try await store.close()
        }
    }

    @Test("PostgreSQL stopped under a collector: 503 and /healthz unavailable; started again: 200, no restart")
    func databaseRestart() async throws {
        // A server of its own: stopping the shared one would fail the tests running beside this one.
        let server = try PostgresTestServer.start()
        defer { try? server.stop() }
        let url = try server.makeDatabase()
        try await Self.withCollector(url) { _, client in
            #expect(try await CollectorHarness.post(client, Array(TestPostbacks.postback().json.utf8)).status == 200)
            try server.pause()
            let down = try await CollectorHarness.post(client, Array(TestPostbacks.postback().json.utf8))
            #expect(down.status == 503)
            let health = try await CollectorHarness.get(client, "/healthz")
            #expect(health.status == 503)
            #expect(health.body.contains(#""status":"unavailable""#))
            try server.resume()
            var recovered = false
            let deadline = ContinuousClock.now + .seconds(30)
            while !recovered, ContinuousClock.now < deadline {
                recovered = try await CollectorHarness.post(client, Array(TestPostbacks.postback().json.utf8)).status == 200
                if !recovered { try await Task.sleep(for: .milliseconds(250)) }
            }
            #expect(recovered)
            #expect(try await CollectorHarness.get(client, "/healthz").status == 200)
        }
    }
}
