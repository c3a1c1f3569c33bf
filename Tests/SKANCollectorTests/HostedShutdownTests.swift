import AsyncHTTPClient
import Foundation
import NIOCore
import SKANStore
import SKANStorePostgres
import SKANStoreSQLite
import SKANTestSupport
import Synchronization
import Testing

/// One `skan serve` hosting the collector, the signer and the dashboard, each on its own listener, in one service
/// group: SIGTERM under load on all three stops it with status 0 and loses no acknowledged postback (issue 31).
@Suite("One process, three services, one graceful shutdown", .temporaryFolder, .serialized)
struct HostedShutdownTests {
    static let impression = #"{"version":"4.0","ad-network-id":"example.skadnetwork","source-identifier":5239,"itunes-item-id":525463029,"source-app-id":0}"#

    @Test("SIGTERM under load on collector, signer and dashboard: exit 0 and every acknowledged postback stored",
          .enabled(if: CrashRecoveryTests.isBuilt, "needs the skan binary beside the tests"), .timeLimit(.minutes(2)))
    func sigtermUnderLoad() async throws {
        let folder = try TemporaryFolder.current.url
        let path = folder.appendingPathComponent("skan.sqlite").path
        let (ids, _) = try await Self.stopUnderLoad(database: path, folder: folder)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the store did not close cleanly")

        // After a restart of the store, every postback acknowledged by the process is a row.
        try await Self.expectStored(ids, in: try await SQLitePostbackStore.open(path: path), engine: "SQLite")
    }

    @Test("on PostgreSQL: SIGTERM under load on all three, each store's pool hosted by the group and stopped after its close",
          .enabled(if: CrashRecoveryTests.isBuilt && PostgresTestServer.isAvailable, "needs the skan binary and the PostgreSQL test server"),
          .timeLimit(.minutes(2)))
    func sigtermUnderLoadPostgres() async throws {
        let folder = try TemporaryFolder.current.url
        let server = try #require(PostgresTestServer.shared)
        let url = try server.makeDatabase()
        let (ids, log) = try await Self.stopUnderLoad(database: url, folder: folder)
        // A pool stopped before its store closed leaves the counters unfolded (and says so): each pool stops last.
        #expect(!log.contains("cannot fold the counters"), "\(log)")
        let store = PostgresPostbackStore(try PostgresStoreConfiguration(url: url))
        try await StoreHost.running([store]) { try await Self.expectStored(ids, in: store, engine: "PostgreSQL") }
        let collectors = try server.psql(url, "SELECT count(DISTINCT collector) FROM stat_counters")
        #expect(collectors.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "the stopped collector's counters were folded")
    }

    /// Every one of `ids` is a row of `store`, which is closed after.
    static func expectStored(_ ids: [String], in store: any PostbackStore, engine: String) async throws {
        var missing = 0
        for id in ids where try await store.postbacks(transactionID: id).isEmpty { missing += 1 }
        let stats = try await store.stats()
        try await store.close()
        print("hosted shutdown on \(engine): \(ids.count) postbacks acknowledged, \(stats.postbacks) stored, \(missing) missing")
        #expect(missing == 0, "lost \(missing) of \(ids.count) acknowledged postbacks")
        #expect(stats.postbacks >= ids.count)
    }

    /// `skan serve` on `database` with the signer and the dashboard, under load on all three, sent SIGTERM once each
    /// has answered; expects exit 0, and returns the postbacks it acknowledged and what it logged.
    static func stopUnderLoad(database: String, folder: URL) async throws -> (ids: [String], log: String) {
        let key = folder.appendingPathComponent("network.pem")
        try FileManager.default.copyItem(at: TestPostbacks.keys.appendingPathComponent("ad-network-private-key.pem"), to: key)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)
        let server = try ServerProcess(binary: CrashRecoveryTests.binary, database: database, extraArguments: [
            "--dashboard-port", "0", "--signer-port", "0", "--signer-key", "example.skadnetwork=\(key.path)"])
        let signerPort = try #require(server.port(of: "signer"), "\(server.banner)")
        let dashboardPort = try #require(server.port(of: "dashboard"), "\(server.banner)")

        let acknowledged = Acknowledged()
        let counts = Counts()
        let bodies = (0..<20_000).map { _ in TestPostbacks.postback() }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                // Once the server stops listening a worker stops: the rest was never sent.
                group.addTask { await CrashRecoveryTests.post(bodies, worker: worker, of: 16, port: server.port, client: client, into: acknowledged) }
            }
            group.addTask {
                while true {
                    var request = HTTPClientRequest(url: "http://127.0.0.1:\(signerPort)/v1/impressions")
                    request.method = .POST
                    request.headers.add(name: "content-type", value: "application/json")
                    request.body = .bytes(ByteBuffer(string: Self.impression))
                    guard let response = try? await client.execute(request, timeout: .seconds(10)) else { return }
                    _ = try? await response.body.collect(upTo: 8192)
                    if response.status == .ok { counts.signed.add(1, ordering: .relaxed) }
                }
            }
            group.addTask {
                while true {
                    let request = HTTPClientRequest(url: "http://127.0.0.1:\(dashboardPort)/")
                    guard let response = try? await client.execute(request, timeout: .seconds(10)) else { return }
                    _ = try? await response.body.collect(upTo: 1 << 22)
                    if response.status == .ok { counts.pages.add(1, ordering: .relaxed) }
                }
            }
            group.addTask {
                // Mid-load, on every listener at once.
                _ = await RelayCrashTests.eventually(seconds: 60, every: .milliseconds(5)) {
                    acknowledged.ids.withLock { $0.count } >= 300 && counts.signed.load(ordering: .relaxed) >= 3
                        && counts.pages.load(ordering: .relaxed) >= 1
                }
                server.kill(SIGTERM)
            }
        }
        try await client.shutdown()
        await server.waitUntilExit()
        let log = server.log()
        #expect(server.exitStatus == 0, "\(log)")
        let ids = acknowledged.ids.withLock { $0 }
        print("hosted shutdown: \(counts.signed.load(ordering: .relaxed)) impressions signed, "
              + "\(counts.pages.load(ordering: .relaxed)) dashboard pages")
        #expect(ids.count >= 300)
        return (ids, log)
    }
}

/// Replies the signer and the dashboard answered 200, shared by the load tasks.
final class Counts: Sendable {
    let signed = Atomic<Int>(0)
    let pages = Atomic<Int>(0)
}
