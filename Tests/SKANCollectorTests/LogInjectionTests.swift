import AsyncHTTPClient
import Foundation
import NIOCore
import SKANTestSupport
import Testing

/// A value a client sends must never start a log line of its own.
@Suite("Log lines", .temporaryFolder, .serialized)
struct LogInjectionTests {
    @Test("a transaction id with a newline is logged escaped at debug level: no forged line, no raw control byte",
          .enabled(if: CrashRecoveryTests.isBuilt, "needs the skan binary beside the tests"), .timeLimit(.minutes(1)))
    func forgedLine() async throws {
        let path = try TemporaryFolder.current.path("log-\(UUID().uuidString).sqlite")
        let server = try ServerProcess(binary: CrashRecoveryTests.binary, database: path, logLevel: "debug")
        // Malformed (no signature), so the collector logs the refusal with the transaction id it read.
        let forged = #"x\n2026-01-01T00:00:00+0000 critical skan.serve: FAKE LINE\u001b[2J"#
        let body = #"{"version":"4.0","ad-network-id":"n","transaction-id":"\#(forged)","long":"\#(String(repeating: "z", count: 60_000))"}"#
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/postbacks")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        #expect(response.status == .badRequest)
        _ = try await response.body.collect(upTo: 4096)
        server.kill(SIGTERM)
        await server.waitUntilExit()
        let log = server.log()
        #expect(log.contains("refused a postback"), "\(log)")
        #expect(!log.split(separator: "\n").contains { $0.hasPrefix("2026-01-01T00:00:00+0000 critical") })
        #expect(log.contains(#"x\n2026-01-01T00:00:00+0000 critical skan.serve: FAKE LINE\u{1b}[2J"#))
        #expect(!log.unicodeScalars.contains { $0.value == 0x1B })
        #expect(log.split(separator: "\n").allSatisfy { $0.utf8.count < 8_192 }, "every line is bounded")
    }
}
