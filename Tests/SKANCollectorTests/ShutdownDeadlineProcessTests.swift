import Foundation
import NIOCore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// Issue 32: `skan serve --shutdown-timeout` cutting a slow client exited 1 with `CancellationError` though the store
/// closed whole. ShutdownDeadlineTests checks the collector in-process; this runs the command and reads its status.
@Suite("Shutdown deadline, as a process", .temporaryFolder, .serialized)
struct ShutdownDeadlineProcessTests {
    @Test("SIGTERM with a client mid-body past --shutdown-timeout: exit 0, the store closed whole",
          .enabled(if: CrashRecoveryTests.isBuilt, "needs the skan binary beside the tests"), .timeLimit(.minutes(1)),
          arguments: [0, 1])
    func exitsZero(stored: Int) async throws {
        let folder = try TemporaryFolder.current.url
        let path = folder.appendingPathComponent("skan.sqlite").path
        let server = try ServerProcess(binary: CrashRecoveryTests.binary, database: path,
                                       extraArguments: ["--shutdown-timeout", "0.5", "--request-timeout", "50"])
        // With nothing stored yet the close met the cancellation (exit 1 before the fix); with a postback it did not.
        for index in 0..<stored {
            let reply = try await RawHTTP.exchange(port: server.port, RawHTTP.post(TestPostbacks.postback(transactionID: "kept-\(index)").json,
                                                                                    path: "/postbacks"), responses: 1)
            #expect(RawHTTP.parse(reply).first?.status == 200)
        }
        // Still sending its body when the shutdown starts, and after its deadline (the request timeout is 50 s).
        let slow = try await ConnectionLimitTests.open(server.port)
        try await slow.channel.writeAndFlush(ByteBuffer(
            string: "POST /postbacks HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"))
        try await Task.sleep(for: .milliseconds(100))
        server.kill(SIGTERM)
        await server.waitUntilExit()
        try? await slow.channel.close()
        #expect(server.exitStatus == 0, "\(server.log())")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the store did not close whole")
        let reopened = try await SQLitePostbackStore.open(path: path)
        #expect(try await reopened.stats().postbacks == stored)
        try await reopened.close()
    }
}
