import Foundation
import Logging
import Testing
@testable import skan

/// The JSON lines' shape and bounds, as the text handler's: escaped, at most 512 bytes, and still JSON.
@Suite("JSON log lines")
struct JSONLineLogHandlerTests {
    func object(_ line: String) throws -> [String: Any] {
        #expect(line.hasSuffix("\n"))
        #expect(line.utf8.count <= 512, "\(line.utf8.count)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    @Test("a 60 KB value with U+202E and quotes is cut and escaped; the status and the reason stay")
    func boundedAndEscaped() throws {
        let line = JSONLogLine.line(time: "2026-11-20T08:00:00Z", level: .debug, label: "skan.serve",
                                           metadata: ["status": "malformed", "reason": "bad \"app-id\"",
                                                      "body": .string("\u{202E}\\\"" + String(repeating: "z", count: 60_000))],
                                           source: "SKANCollector", message: "refused a postback")
        let parsed = try object(line)
        #expect(parsed["event"] as? String == "postback.refused")
        #expect(parsed["status"] as? String == "malformed")
        #expect(parsed["reason"] as? String == "bad \"app-id\"")
        let body = try #require(parsed["body"] as? String)
        #expect(body.hasPrefix(#"\u{202e}\""#) && body.contains("bytes]"), "\(body)")
        #expect(!line.unicodeScalars.contains { $0.value == 0x202E })
    }

    @Test("a newline in a value cannot start a line of its own")
    func newlineEscaped() throws {
        let line = JSONLogLine.line(time: "t", level: .info, label: "l", metadata: ["id": "a\n{\"event\":\"forged\"}"],
                                           source: "s", message: "m\r\n")
        #expect(line.split(separator: "\n").count == 1)
        let parsed = try object(line)
        #expect(parsed["id"] as? String == #"a\n{"event":"forged"}"#)
        #expect(parsed["message"] as? String == #"m\r\n"#)
    }

    @Test("too many members to fit: the last are left out and counted, the line still JSON")
    func droppedMembers() throws {
        var metadata: Logger.Metadata = [:]
        for index in 0..<60 { metadata[String(format: "key-%02d", index)] = .string(String(repeating: "v", count: 40)) }
        let parsed = try object(JSONLogLine.line(time: "t", level: .info, label: "l", metadata: metadata,
                                                        source: "s", message: "descriptor limit"))
        let dropped = try #require((parsed["dropped"] as? String).flatMap(Int.init))
        #expect(dropped > 0 && parsed.count - 7 + dropped == 60)
        #expect(parsed["key-00"] != nil)
    }

    @Test("events: named for SKANKit's own messages, the leading words for a library's, or the event metadata")
    func eventNames() throws {
        #expect(JSONLogLine.event(for: "the store failed") == "store.failed")
        #expect(JSONLogLine.event(for: "Server started and listening on 127.0.0.1:8080")
                == "server_started_and_listening_on")
        #expect(JSONLogLine.event(for: "42") == "message")
        let named = try object(JSONLogLine.line(time: "t", level: .info, label: "l", metadata: ["event": "x.y", "level": "7"],
                                                       source: "s", message: "anything"))
        #expect(named["event"] as? String == "x.y")
        #expect(named["level"] as? String == "info" && named["metadata.level"] as? String == "7")
    }
}
