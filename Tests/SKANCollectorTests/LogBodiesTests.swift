import AsyncHTTPClient
import Foundation
import NIOCore
import SKANTestSupport
import Testing

/// `skan serve --log-bodies`: the README bounds every log line to 512 bytes, escaped.
@Suite("Logged bodies", .serialized)
struct LogBodiesTests {
    @Test("a refused body with U+202E and 60 KB of text logs lines of at most 512 bytes, escaped, status and reason kept",
          .enabled(if: CrashRecoveryTests.isBuilt, "needs the skan binary beside the tests"), .timeLimit(.minutes(1)))
    func boundedEscapedLines() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("skan-logbodies-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CrashRecoveryTests.binary)
        process.arguments = ["serve", "--db", path, "--port", "0", "--log-level", "debug", "--log-bodies", "--apple-key-p256",
                             TestPostbacks.keys.appendingPathComponent("simulated-apple-p256-public-key.pem").path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var text = ""
        while text.range(of: #"listening on http://127\.0\.0\.1:\d+"#, options: .regularExpression) == nil {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        let found = try #require(text.range(of: #"listening on http://127\.0\.0\.1:\d+"#, options: .regularExpression))
        let port = try #require(Int(text[found].split(separator: ":").last ?? ""))

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
        kill(process.processIdentifier, SIGTERM)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = log.split(separator: "\n")
        let refusal = try #require(lines.first { $0.contains("refused a postback") }, "\(log)")
        #expect(lines.allSatisfy { $0.utf8.count + 1 <= 512 }, "\(lines.map(\.utf8.count))")
        #expect(refusal.contains("body={") && refusal.contains("status=malformed") && refusal.contains("reason="))
        #expect(refusal.contains("body-bytes=\(body.utf8.count)"))
        #expect(refusal.contains(#"t\u{202e}\u{200f}x"#))
        #expect(!log.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x200F })
    }
}
