import AsyncHTTPClient
import Foundation
import NIOCore
import SKANTestSupport
import Testing

/// `skan serve --log-format json`: every line a JSON object with a fixed event name, the metadata as members, and
/// no body or signature of a refused postback (unless `--log-bodies`).
@Suite("JSON log lines", .temporaryFolder, .serialized)
struct JSONLogTests {
    @Test("a refused postback logs one JSON line with its status and reason, no body, every line parsing",
          .enabled(if: CrashRecoveryTests.isBuilt, "needs the skan binary beside the tests"), .timeLimit(.minutes(1)))
    func refusedPostbackLine() async throws {
        let path = try TemporaryFolder.current.path("jsonlog-\(UUID().uuidString).sqlite")
        let server = try ServerProcess(binary: CrashRecoveryTests.binary, database: path, logLevel: "debug",
                                       extraArguments: ["--log-format", "json"])
        defer { if server.process.isRunning { server.process.terminate() } }

        // Signed-looking but refused (no app-id): the signature and a marker must not reach the log.
        let body = #"{"version":"4.0","ad-network-id":"net\u202E.skadnetwork","transaction-id":"t-json-1","#
            + #""attribution-signature":"MEUCIQDsecretSIGNATUREmarker","marker":"BODY-MARKER"}"#
        #expect(try await server.post(body) == 400)
        let log = await server.stop()
        let lines = log.split(separator: "\n")
        #expect(!lines.isEmpty)
        var objects: [[String: Any]] = []
        for line in lines {
            #expect(line.utf8.count + 1 <= 512, "\(line)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            for member in ["time", "level", "label", "event", "message", "source"] {
                #expect(object[member] is String, "\(member) in \(line)")
            }
            objects.append(object)
        }
        let refusal = try #require(objects.first { $0["event"] as? String == "postback.refused" }, "\(log)")
        #expect(refusal["status"] as? String == "malformed")
        #expect(refusal["transaction-id"] as? String == "t-json-1")
        #expect(refusal["reason"] is String)
        #expect(refusal["body"] == nil)
        #expect(!log.contains("BODY-MARKER") && !log.contains("secretSIGNATURE"))
        #expect(objects.contains { $0["event"] as? String == "listener.descriptor_limit" && $0["soft"] is String })
        #expect(!log.unicodeScalars.contains { $0.value == 0x202E })
    }
}

extension ServerProcess {
    /// POSTs `body` to `/postbacks` and returns the reply's status code.
    func post(_ body: String) async throws -> UInt {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/postbacks")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        _ = try await response.body.collect(upTo: 4096)
        return response.status.code
    }

    /// Stops the server with SIGTERM and returns what it logged.
    func stop() async -> String {
        kill(SIGTERM)
        await waitUntilExit()
        return log()
    }
}
