import Foundation
import Logging
import NIOCore
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing
@testable import SKANCollector

/// `skan serve --shutdown-timeout`: the deadline cuts slow clients off; it must not cut the store's close short.
@Suite("Shutdown deadline", .temporaryFolder, .timeLimit(.minutes(1)))
struct ShutdownDeadlineTests {
    @Test("a shutdown past its deadline still closes a file store whole and ends without an error")
    func cleanCloseAfterDeadline() async throws {
        let path = try TemporaryFolder.current.path("deadline-\(UUID().uuidString).sqlite")
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let store = try SQLitePostbackStore(path: path, durability: .normal)
        let collector = try Collector(configuration: CollectorConfiguration(port: 0, requestTimeout: .seconds(50),
                                                                            shutdownTimeout: .milliseconds(300)),
                                      store: store, verifier: TestPostbacks.verifier, logger: logger)
        let clock = ContinuousClock()
        let started = clock.now
        // Before the fix the store's close ran in the cancelled task and this threw "cannot close the store: ...
        // CancellationError()": `skan serve` exited 1.
        let slow = try await collector.serve(whileRunning: { port in
            let reply = try await RawHTTP.exchange(port: port, RawHTTP.post(TestPostbacks.postback(transactionID: "kept").json,
                                                                            path: "/postbacks"), responses: 1)
            #expect(RawHTTP.parse(reply).first?.status == 200)
            // A client still sending its body when the shutdown starts, and after its deadline.
            let channel = try await ConnectionLimitTests.open(port)
            try await channel.channel.writeAndFlush(ByteBuffer(
                string: "POST /postbacks HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"))
            try await Task.sleep(for: .milliseconds(100))
            return channel
        })
        try? await slow.channel.close()
        // Under the 50 s request timeout: the shutdown deadline, not the slow client, ended the wait. Alone this takes
        // 0.5 s; in a full parallel run 20-22 s (not yet explained), so the bound is the request timeout's margin.
        #expect(clock.now - started < .seconds(45))
        // Closed whole: the WAL checkpointed into the file and removed, the acknowledged postback there.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let reopened = try await SQLitePostbackStore.open(path: path)
        #expect(try await reopened.stats().postbacks == 1)
        try await reopened.close()
    }
}
