import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SKANCollector
import SKANStore
import SKANTestSupport
import Synchronization
import Testing

/// Lines a logger was given, for tests that count them.
final class RecordingLogHandler: LogHandler, Sendable {
    let lines = Mutex<[(message: String, metadata: Logger.Metadata)]>([])
    var metadata: Logger.Metadata { get { [:] } set {} }
    var logLevel: Logger.Level { get { .trace } set {} }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? { get { nil } set {} }

    func log(event: LogEvent) {
        lines.withLock { $0.append(("\(event.message)", event.metadata ?? [:])) }
    }

    var logger: Logger { Logger(label: "test") { _ in self } }
}

/// A store whose every operation fails as a broken SQLite file would, with SQLite's own words.
struct BrokenStore: PostbackStore {
    static let error = StoreError(.readFailed, "SQLite error 11: database disk image is malformed - while executing `SELECT * FROM postbacks`")
    /// The file broke after the collector started: its schema step went through.
    func migrate() async throws(StoreError) {}
    func write(_ entries: [StoreEntry]) async throws(StoreError) -> [StoreOutcome] { throw Self.error }
    func postbacks(transactionID: String) async throws(StoreError) -> [StoredPostback] { throw Self.error }
    func stats() async throws(StoreError) -> StoreStats { throw Self.error }
    func health() async -> StoreError? { Self.error }
    func close() async throws(StoreError) {}
}

/// Manual time for the failure log.
final class ManualInstant: Sendable {
    let value = Mutex(ContinuousClock.now)
    func advance(_ duration: Duration) { value.withLock { $0 += duration } }
    var now: @Sendable () -> ContinuousClock.Instant { { self.value.withLock { $0 } } }
}

@Suite("Store failures, logged and answered")
struct StoreFailureReplyTests {
    @Test("a repeated failure is logged once per interval with a count of what went unlogged; a new kind at once")
    func rateLimited() {
        let handler = RecordingLogHandler()
        let clock = ManualInstant()
        let log = StoreFailureLog(logger: handler.logger, interval: .seconds(10), now: clock.now)
        let diskFull = StoreError(.writeFailed, "database or disk is full")
        for _ in 0..<1_000 { log.record(diskFull, entries: 3) }
        #expect(handler.lines.withLock { $0.count } == 1)
        clock.advance(.seconds(10))
        log.record(diskFull, entries: 3)
        let second = handler.lines.withLock { $0 }
        #expect(second.count == 2)
        #expect(second.last?.metadata["suppressed-failures"] == "999")
        #expect(second.last?.metadata["suppressed-entries"] == "2997")
        log.record(StoreError(.fileReplaced, "gone"), entries: 1)
        #expect(handler.lines.withLock { $0.count } == 3)
    }

    @Test("the writer reports a failed transaction once, however many submissions it held")
    func oncePerTransaction() async throws {
        let failures = Mutex<[Int]>([])
        let writer = GroupCommitWriter(store: BrokenStore(), onFailure: { _, entries in failures.withLock { $0.append(entries) } })
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 {
                group.addTask { (try? await writer.submit(.rejected(RejectedPostback(
                    status: "malformed", field: nil, reason: "r", version: nil, transactionID: nil, adNetworkID: nil,
                    rawBody: [], receivedAt: Date(), endpoint: "/postbacks")))) == nil }
            }
            while writer.queuedEntries < 100 { await Task.yield() }
            group.addTask { await writer.run(); return true }
            writer.finish()
            var failed = 0
            for await result in group where result { failed += 1 }
            return failed
        }
        #expect(results == 101)
        #expect(failures.withLock { $0 } == [100])
    }

    @Test("healthz, stats and a lookup answer 503 with the store's code, never the database's message")
    func unavailableReplies() async throws {
        let handler = RecordingLogHandler()
        let collector = try Collector(configuration: CollectorConfiguration(port: 0), store: BrokenStore(),
                                      verifier: TestPostbacks.verifier, logger: handler.logger)
        try await collector.adminApplication().test(.router) { client in
            for path in ["/healthz", "/stats", "/postbacks/abc"] {
                let reply = try await CollectorHarness.get(client, path)
                #expect(reply.status == 503, "\(path)")
                #expect(reply.body.contains("read-failed"), "\(path): \(reply.body)")
                #expect(!reply.body.contains("SQLite") && !reply.body.contains("SELECT"), "\(path): \(reply.body)")
            }
        }
        try await collector.application().test(.router) { client in
            let health = CollectorHarness.json(try await CollectorHarness.get(client, "/healthz").body)
            #expect(health["status"] as? String == "unavailable" && health["part"] as? String == "store")
        }
        // The whole message is kept for the operator, once.
        let logged = handler.lines.withLock { $0 }
        #expect(logged.count == 1)
        #expect(logged.first?.metadata["error"].map { "\($0)" }?.contains("SQLite error 11") == true)
    }
}

/// `skan serve` whose database folder is removed while it runs must stop acknowledging, say so and not exit 0.
@Suite("A database removed under a running collector", .temporaryFolder, .serialized)
struct RemovedDatabaseTests {
    @Test("postbacks get 503, healthz fails, the log says it once, and the exit status is not 0",
          .enabled(if: CrashRecoveryTests.isBuilt, "needs the skan binary beside the tests"), .timeLimit(.minutes(1)))
    func folderRemoved() async throws {
        let folder = try TemporaryFolder.current.url
        let server = try ServerProcess(binary: CrashRecoveryTests.binary, database: folder.appendingPathComponent("skan.sqlite").path)
        func post() async throws -> (Int, String) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/postbacks")
            request.method = .POST
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: TestPostbacks.postback().json))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
            return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 4096)))
        }
        func health() async throws -> Int {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/healthz"),
                                                               timeout: .seconds(5))
            _ = try await response.body.collect(upTo: 4096)
            return Int(response.status.code)
        }
        #expect(try await post().0 == 200)
        #expect(try await health() == 200)
        try FileManager.default.removeItem(at: folder)
        for _ in 0..<20 {
            let (status, body) = try await post()
            #expect(status == 503)
            #expect(body.contains("file-replaced"), "\(body)")
        }
        #expect(try await health() == 503)
        server.kill(SIGTERM)
        await server.waitUntilExit()
        #expect(server.exitStatus != 0)
        let log = server.log()
        // The first failure is logged at once; repeats within the log's window are summed into one later line
        // (`suppressed-failures=`), which a slow machine's twenty requests can span.
        let lines = log.split(separator: "\n").filter { $0.contains("the store failed") && !$0.contains("suppressed-failures=") }
        #expect(lines.count == 1, "\(log)")
    }
}
