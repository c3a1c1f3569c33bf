import AsyncHTTPClient
import Foundation
import NIOCore
import SKANTestSupport
import Testing

/// `skan serve --log-bodies`: the README bounds every log line to 512 bytes, escaped.
@Suite("Logged bodies", .temporaryFolder, .serialized)
struct LogBodiesTests {
    @Test("a refused body with U+202E and 60 KB of text logs lines of at most 512 bytes, escaped, status and reason kept",
          .enabled(if: CrashRecoveryTests.isBuilt, "needs the skan binary beside the tests"), .timeLimit(.minutes(1)))
    func boundedEscapedLines() async throws {
        let path = try TemporaryFolder.current.path("logbodies-\(UUID().uuidString).sqlite")
        let server = try ServerProcess(binary: CrashRecoveryTests.binary, database: path, logLevel: "debug",
                                       extraArguments: ["--log-bodies"])
        defer { if server.process.isRunning { server.process.terminate() } }
        let port = server.port

        // Malformed (no app-id, no signature): refused and logged at debug with its body.
        let body = "{\"version\":\"4.0\",\"ad-network-id\":\"\u{202E}gpj.exe\",\"transaction-id\":\"t\u{202E}\u{200F}x\","
            + "\"long\":\"\(String(repeating: "z", count: 60_000))\"}"
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/postbacks")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        #expect(response.status == .badRequest)
        _ = try await response.body.collect(upTo: 4096)
        server.kill(SIGTERM)
        await server.waitUntilExit()
        let log = server.log()
        let lines = log.split(separator: "\n")
        let refusal = try #require(lines.first { $0.contains("refused a postback") }, "\(log)")
        #expect(lines.allSatisfy { $0.utf8.count + 1 <= 512 }, "\(lines.map(\.utf8.count))")
        #expect(refusal.contains("body={") && refusal.contains("status=malformed") && refusal.contains("reason="))
        #expect(refusal.contains("body-bytes=\(body.utf8.count)"))
        #expect(refusal.contains(#"t\u{202e}\u{200f}x"#))
        #expect(!log.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x200F })
    }
}
