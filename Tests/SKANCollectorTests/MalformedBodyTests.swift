import SKANTestSupport
import Foundation
import HummingbirdTesting
import SKANCollector
import Testing

/// Every kind of broken body gets its 4xx and leaves the server answering.
@Suite("Malformed bodies")
struct MalformedBodyTests {
    typealias H = CollectorHarness

    /// A valid signed postback's JSON, for the cases that break one thing in it.
    static let valid = TestPostbacks.postback(transactionID: "0b6a0f3e-7c36-4bd4-8a4e-4b0d1e8a1f00").json

    static let cases: [(name: String, body: [UInt8], status: Int)] = [
        ("empty body", [], 400),
        ("truncated JSON", Array(valid.utf8.prefix(valid.utf8.count / 2)), 400),
        ("10,000-deep nesting", Array((String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).utf8), 400),
        ("10,000-deep nesting inside an object", Array((#"{"a":"# + String(repeating: #"{"a":"#, count: 10_000)
            + "1" + String(repeating: "}", count: 10_001)).utf8), 400),
        ("invalid UTF-8", Array(valid.utf8.prefix(20)) + [0xC3, 0x28, 0xFF] + Array(valid.utf8.dropFirst(20)), 400),
        ("a NUL byte", Array(valid.replacingOccurrences(of: "5239", with: "52\u{0}39").utf8), 400),
        ("a bare NUL byte", [0], 400),
        ("a string where an integer belongs", Array(valid.replacingOccurrences(of: #""fidelity-type":1"#, with: #""fidelity-type":"1""#).utf8), 400),
        ("an object where a string belongs", Array(valid.replacingOccurrences(of: #""ad-network-id":"example.skadnetwork""#, with: #""ad-network-id":{}"#).utf8), 400),
        ("a number beyond 64 bits", Array(valid.replacingOccurrences(of: #""app-id":525463029"#, with: #""app-id":184467440737095516160"#).utf8), 400),
        ("a duplicate key", Array(valid.replacingOccurrences(of: #""app-id":525463029"#, with: #""app-id":525463029,"app-id":1"#).utf8), 400),
        ("a JSON array", Array("[1,2,3]".utf8), 400),
        ("a body over 64 KiB", Array(("{\"pad\":\"" + String(repeating: "x", count: 70_000) + "\"}").utf8), 413),
    ]

    @Test("refuses the body with the right 4xx and keeps serving", arguments: cases.map(\.name), Transport.allCases)
    func refuses(name: String, transport: Transport) async throws {
        let broken = try #require(Self.cases.first { $0.name == name })
        try await H.withCollector(transport) { _, client in
            let reply = try await H.post(client, broken.body)
            #expect(reply.status == broken.status, "\(name): \(reply.body)")
            #expect(H.json(reply.body)["status"] as? String != nil, "the reply is a JSON object with a status")
            let after = try await H.post(client, Array(TestPostbacks.postback().json.utf8))
            #expect(after.status == 200)
            #expect(try await H.get(client, "/healthz").status == 200)
        }
    }

    @Test("records refused bodies in rejected_postbacks, and the 413 only in metrics", arguments: Transport.allCases)
    func recorded(transport: Transport) async throws {
        let stats = try await H.withCollector(transport) { collector, client in
            for broken in Self.cases { _ = try await H.post(client, broken.body) }
            return try await collector.store.stats()
        }
        #expect(stats.rejected == Self.cases.filter { $0.status == 400 }.count)
    }
}
