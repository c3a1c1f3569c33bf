import SKANTestSupport
import AsyncHTTPClient
import Foundation
import NIOCore
import SKANCore
import SKANStore
import SKANStoreSQLite
import SKANStorePostgres
import Synchronization
import Testing

/// The real `skan serve` binary, killed with SIGKILL under load, keeps every postback it answered 200 for.
@Suite("Crash recovery", .temporaryFolder, .serialized)
struct CrashRecoveryTests {
    /// `skan` sits beside the test bundle once the package is built (`swift build` or `swift test`).
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("skan").path

    static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    @Test("keeps every acknowledged postback across SIGKILL, then shuts down on SIGTERM leaving no WAL",
          .enabled(if: isBuilt, "needs the skan binary beside the tests"), .timeLimit(.minutes(1)))
    func sigkill() async throws {
        let path = try TemporaryFolder.current.path("kill-\(UUID().uuidString).sqlite")
        let ids = try await Self.loadAndKill(database: path)
        #expect(ids.count >= 300)
        let second = try ServerProcess(binary: Self.binary, database: path)
        let store = try await SQLitePostbackStore.open(path: path)
        var missing: [String] = []
        for id in ids where try await store.postbacks(transactionID: id).isEmpty { missing.append(id) }
        try await store.close()
        #expect(missing.isEmpty, "lost \(missing.count) of \(ids.count) acknowledged postbacks")
        // A read on the server opens its pool's read-only connections, the case that used to leave the WAL behind.
        let stats = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(second.adminPort)/stats"),
                                                        timeout: .seconds(5))
        #expect(stats.status == .ok)
        _ = try await stats.body.collect(upTo: 4096)
        second.kill(SIGTERM)
        await second.waitUntilExit()
        #expect(second.exitStatus == 0)
        // Closed cleanly: the database is whole in its file, with no WAL or shared-memory file beside it.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    }

    /// Starts `skan serve --db database`, posts 6,000 distinct postbacks from 16 workers, kills the server with
    /// SIGKILL once 300 were acknowledged, and returns the transaction ids it answered `accepted` for.
    static func loadAndKill(database path: String, extraArguments: [String] = []) async throws -> [String] {
        let acknowledged = Acknowledged()
        let bodies = (0..<6000).map { _ in TestPostbacks.postback() }

        let first = try ServerProcess(binary: Self.binary, database: path, extraArguments: extraArguments)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask { await Self.post(bodies, worker: worker, of: 16, port: first.port, client: client, into: acknowledged) }
            }
            group.addTask {
                // Kill mid-load, without warning: no graceful shutdown, no checkpoint.
                // Bounded: were every worker to give up first (no answer in 10 s), 300 would never come.
                _ = await RelayCrashTests.eventually(seconds: 60, every: .milliseconds(5)) {
                    acknowledged.ids.withLock { $0.count } >= 300
                }
                first.kill(SIGKILL)
            }
        }
        try await client.shutdown()
        await first.waitUntilExit()
        #expect(first.terminationSignal == SIGKILL)

        return acknowledged.ids.withLock { $0 }
    }

    /// Posts every `workers`-th of `bodies` from `worker` on, one at a time, and records the transaction ids answered
    /// `accepted`; returns at the first request that gets no answer (the server stopped).
    static func post(_ bodies: [Postback], worker: Int, of workers: Int, port: Int, client: HTTPClient,
                     into acknowledged: Acknowledged) async {
        var index = worker
        while index < bodies.count {
            guard let accepted = await accept(bodies[index], port: port, client: client) else { return }
            if accepted { acknowledged.ids.withLock { $0.append(bodies[index].transactionID) } }
            index += workers
        }
    }

    /// Posts `postback` once: whether it was answered `accepted`, or `nil` when no answer came (the server stopped).
    static func accept(_ postback: Postback, port: Int, client: HTTPClient) async -> Bool? {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/postbacks")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: postback.json))
        guard let response = try? await client.execute(request, timeout: .seconds(10)) else { return nil }
        let reply = try? await response.body.collect(upTo: 1024)
        return response.status == .ok && reply.map { String(buffer: $0) } == #"{"status":"accepted"}"#
    }

    @Test("on PostgreSQL: every acknowledged postback is a row after SIGKILL under load",
          .enabled(if: isBuilt && PostgresTestServer.isAvailable, "needs the skan binary and the PostgreSQL test server"),
          .timeLimit(.minutes(1)))
    func sigkillPostgres() async throws {
        let server = try #require(PostgresTestServer.shared)
        let url = try server.makeDatabase()
        let ids = try await Self.loadAndKill(database: url)
        #expect(ids.count >= 300)
        let store = PostgresPostbackStore(try PostgresStoreConfiguration(url: url))
        try await StoreHost.running([store]) {
            var missing: [String] = []
            for id in ids where try await store.postbacks(transactionID: id).isEmpty { missing.append(id) }
            try await store.close()
            #expect(missing.isEmpty, "lost \(missing.count) of \(ids.count) acknowledged postbacks")
        }
    }
}

/// `skan serve` on a free port, trusting the simulated Apple test key.
/// `Process` is not marked Sendable; this wrapper only signals and waits on it, which Foundation allows from any thread.
final class ServerProcess: @unchecked Sendable {
    let process: Process
    let port: Int
    /// The admin listener's port (`/stats`, `/metrics`).
    let adminPort: Int
    /// What the server logs, readable once it has exited.
    let errors = Pipe()
    /// What it printed once its listeners were up: a line per listener.
    let banner: String

    /// `extraArguments` go to `skan serve` after the ones every test needs (e.g. `--log-bodies`).
    init(binary: String, database: String, logLevel: String = "warning", extraArguments: [String] = []) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--db", database, "--port", "0", "--log-level", logLevel, "--apple-key-p256",
                             TestPostbacks.keys.appendingPathComponent("simulated-apple-p256-public-key.pem").path]
            + extraArguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The server prints a line with its port once it listens, then one with the admin port.
        var text = ""
        while !text.contains("admin on") || !text.hasSuffix("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
              let port = Int(text[range].split(separator: ":").last ?? "") else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "no port in \(text)"])
        }
        let admin = text.range(of: #"admin on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression)
            .flatMap { Int(text[$0].split(separator: ":").last ?? "") }
        self.process = process
        self.port = port
        self.adminPort = admin ?? 0
        banner = text
    }

    /// The port of the listener whose banner line starts `skan serve: NAME on`, e.g. `dashboard`.
    func port(of name: String) -> Int? {
        text(after: "skan serve: \(name) on http://127.0.0.1:").flatMap { Int($0.prefix { $0.isNumber }) }
    }

    private func text(after prefix: String) -> Substring? {
        banner.range(of: prefix).map { banner[$0.upperBound...] }
    }

    func kill(_ signal: Int32) { Foundation.kill(process.processIdentifier, signal) }
    /// Everything the server wrote to standard error; call after it exited.
    func log() -> String { String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
    /// Waits on a Dispatch thread: blocking one of Swift's few concurrency threads starved the HTTP tests that
    /// run beside this one.
    func waitUntilExit() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.process.waitUntilExit()
                continuation.resume()
            }
        }
    }
    var terminationSignal: Int32? { process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil }
    var exitStatus: Int32? { process.terminationReason == .exit ? process.terminationStatus : nil }
}

/// Transaction ids the server answered `accepted` for, shared by the load tasks.
final class Acknowledged: Sendable {
    let ids = Mutex<[String]>([])
}
