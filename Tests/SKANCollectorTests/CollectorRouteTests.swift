import Foundation
import Hummingbird
import Logging
import HummingbirdTesting
import SKANCollector
import SKANCore
import SKANHTTP
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

@Suite("Collector routes")
struct CollectorRouteTests {
    typealias H = CollectorHarness

    @Test("answers 200 accepted, then 200 duplicate for the same postback", arguments: [
        CollectorConfiguration.networkPath, CollectorConfiguration.developerCopyPath,
    ], Transport.allCases)
    func acceptedThenDuplicate(path: String, transport: Transport) async throws {
        try await H.withCollector(transport) { _, client in
            let body = Array(TestPostbacks.postback().json.utf8)
            let first = try await H.post(client, body, path: path)
            #expect(first.status == 200)
            #expect(first.body == #"{"status":"accepted"}"#)
            let second = try await H.post(client, body, path: path)
            #expect(second.status == 200)
            #expect(second.body == #"{"status":"duplicate"}"#)
        }
    }

    @Test("takes AdAttributionKit postbacks on every path; a copy at the other path is a duplicate", arguments: Transport.allCases)
    func adAttributionKit(transport: Transport) async throws {
        try await H.withCollector(transport) { collector, client in
            let body = TestPostbacks.aakBody()
            let first = try await H.post(client, body, path: CollectorConfiguration.networkPath)
            #expect(first.status == 200)
            #expect(first.body == #"{"status":"accepted"}"#)
            let copy = try await H.post(client, body, path: CollectorConfiguration.aakDeveloperCopyPath)
            #expect(copy.body == #"{"status":"duplicate"}"#)
            // A re-engagement is another postback; a tampered JWS is refused naming the JWS.
            let other = try await H.post(client, TestPostbacks.aakBody(conversionType: "re-engagement"),
                                         path: CollectorConfiguration.aakDeveloperCopyPath)
            #expect(other.body == #"{"status":"accepted"}"#)
            let tampered = String(decoding: body, as: UTF8.self).replacingOccurrences(of: #"","conversion-value""#,
                                                                                     with: #"A","conversion-value""#)
            let refused = try await H.post(client, Array(tampered.utf8))
            #expect(refused.status == 400)
            #expect(H.json(refused.body)["field"] as? String == "jws-string")
            let stats = try await collector.store.stats()
            #expect(stats.postbacksByVersion == [:])
            #expect(stats.postbacksByFramework == ["adattributionkit": 2])
        }
    }

    @Test("keeps an SKAdNetwork and an AdAttributionKit postback that share an id: the framework is in the key",
          arguments: Transport.allCases)
    func sameIDBothFrameworks(transport: Transport) async throws {
        try await H.withCollector(transport) { collector, client in
            let id = UUID().uuidString.lowercased()
            let skan = try await H.post(client, Array(TestPostbacks.postback(transactionID: id).json.utf8))
            let aak = try await H.post(client, TestPostbacks.aakBody(postbackIdentifier: id, adNetwork: "example.skadnetwork"))
            #expect(skan.body == #"{"status":"accepted"}"# && aak.body == #"{"status":"accepted"}"#)
            let stored = try await collector.store.postbacks(transactionID: id)
            #expect(Set(stored.map(\.framework)) == [.skadnetwork, .adAttributionKit])
        }
    }

    @Test("answers 400 naming attribution-signature for a signature no trusted key made", arguments: Transport.allCases)
    func invalidSignature(transport: Transport) async throws {
        try await H.withCollector(transport) { _, client in
            var postback = TestPostbacks.postback()
            postback.appID += 1
            let reply = try await H.post(client, Array(postback.json.utf8))
            #expect(reply.status == 400)
            let json = H.json(reply.body)
            #expect(json["status"] as? String == "invalid-signature")
            #expect(json["field"] as? String == "attribution-signature")
        }
    }

    @Test("answers 400 naming the field for a malformed postback", arguments: Transport.allCases)
    func malformedField(transport: Transport) async throws {
        try await H.withCollector(transport) { _, client in
            let body = TestPostbacks.postback().json.replacingOccurrences(of: #""app-id":525463029"#,
                                                                          with: #""app-id":"525463029""#)
            let reply = try await H.post(client, Array(body.utf8))
            #expect(reply.status == 400)
            let json = H.json(reply.body)
            #expect(json["status"] as? String == "malformed")
            #expect(json["field"] as? String == "app-id")
        }
    }

    @Test("answers 400 naming version for an unknown version", arguments: Transport.allCases)
    func unsupportedVersion(transport: Transport) async throws {
        try await H.withCollector(transport) { _, client in
            let body = TestPostbacks.postback().json.replacingOccurrences(of: #""version":"4.0""#,
                                                                          with: #""version":"9.9""#)
            let reply = try await H.post(client, Array(body.utf8))
            #expect(reply.status == 400)
            #expect(H.json(reply.body)["status"] as? String == "unsupported-version")
            #expect(H.json(reply.body)["field"] as? String == "version")
        }
    }

    @Test("the routes mount on another service's router beside its own routes")
    func addRoutes() async throws {
        let collector = try Collector(configuration: CollectorConfiguration(port: 0),
                                      store: try SQLitePostbackStore(inMemoryWith: RejectionCap()),
                                      verifier: TestPostbacks.verifier, logger: Logger(label: "test"))
        let router = Router(context: PeerRequestContext.self)
        router.get("/other") { _, _ in "other service" }
        collector.addRoutes(to: router)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await collector.writer.run() }
            try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client async throws in
                #expect(try await H.get(client, "/other").body == "other service")
                #expect(try await H.post(client, Array(TestPostbacks.postback().json.utf8)).status == 200)
                #expect(try await H.get(client, "/healthz").status == 200)
            }
            collector.writer.finish()
            try await group.waitForAll()
        }
    }

    @Test("other methods on a postback path are 405 with Allow: POST", arguments: Transport.allCases)
    func methodNotAllowed(transport: Transport) async throws {
        try await H.withCollector(transport) { _, client in
            for method in [HTTPRequest.Method.put, .get, .delete] {
                try await client.execute(uri: "/postbacks", method: method, body: ByteBuffer(string: "{}")) { response in
                    #expect(response.status.code == 405, "\(method)")
                    #expect(response.headers[.allow] == "POST")
                    #expect(H.json(String(buffer: response.body))["status"] as? String == "method-not-allowed")
                }
            }
        }
    }

    @Test("echoes an unknown version of 60 KB only as an excerpt", arguments: Transport.allCases)
    func hugeVersionNotEchoed(transport: Transport) async throws {
        try await H.withCollector(transport) { _, client in
            let version = String(repeating: "9", count: 60_000)
            let reply = try await H.post(client, Array(#"{"version":"\#(version)","transaction-id":"t"}"#.utf8))
            #expect(reply.status == 400)
            #expect(H.json(reply.body)["status"] as? String == "unsupported-version")
            #expect(reply.body.utf8.count < 400, "\(reply.body.utf8.count) bytes echoed")
        }
    }

    @Test("answers 413 for a body over the limit", arguments: Transport.allCases)
    func tooLarge(transport: Transport) async throws {
        try await H.withCollector(transport) { _, client in
            let reply = try await H.post(client, [UInt8](repeating: 0x20, count: 64 * 1024 + 1))
            #expect(reply.status == 413)
            #expect(H.json(reply.body)["status"] as? String == "too-large")
        }
    }

    @Test("answers 415 for a declared non-JSON content type, and takes JSON with parameters or none", arguments: [
        ("text/plain", 415), ("application/x-www-form-urlencoded", 415), ("application/json; charset=utf-8", 200),
        ("application/JSON", 200),
    ], Transport.allCases)
    func contentType(expected: (type: String, status: Int), transport: Transport) async throws {
        let (type, status) = expected
        try await H.withCollector(transport) { _, client in
            let reply = try await H.post(client, Array(TestPostbacks.postback().json.utf8), contentType: type)
            #expect(reply.status == status)
        }
    }

    @Test("takes a postback sent without a content type", arguments: Transport.allCases)
    func noContentType(transport: Transport) async throws {
        try await H.withCollector(transport) { _, client in
            let reply = try await H.post(client, Array(TestPostbacks.postback().json.utf8), contentType: nil)
            #expect(reply.status == 200)
        }
    }

    @Test("accepts Apple's own sample postback when Apple's keys are trusted")
    func appleSample() async throws {
        try await H.withCollector { _, client in
            let body = try Data(contentsOf: TestPostbacks.packageRoot
                .appendingPathComponent("Samples/postbacks/skan-4.0-web-fine-apple-doc.json"))
            let reply = try await H.post(client, Array(body))
            #expect(reply.body == #"{"status":"accepted"}"#)
        }
    }

    @Test("serves healthz, and on the admin listener stats, a stored postback by transaction id, and 404 for an unknown one",
          arguments: Transport.allCases)
    func getRoutes(transport: Transport) async throws {
        try await H.withCollector(transport) { collector, device in
            let postback = TestPostbacks.postback()
            _ = try await H.post(device, Array(postback.json.utf8))
            _ = try await H.post(device, Array("{".utf8))
            let health = try await H.get(device, "/healthz")
            #expect(health.status == 200 && health.body == #"{"status":"ok"}"#)
            try await H.withAdmin(collector, transport) { client in
                let stats = try await H.get(client, "/stats")
                #expect(stats.body == #"{"schema-version":1,"postbacks":1,"postbacks-by-version":{"4.0":1},"postbacks-by-framework":{"skadnetwork":1},"rejected":1,"rejected-by-status":{"malformed":1},"rejected-dropped":0,"duplicates":0,"conflicts":0,"conflicts-by-field":{"coarse-value":0,"conversion-value":0,"country":0,"interaction":0}}"#)
                let found = try await H.get(client, "/postbacks/\(postback.transactionID)")
                #expect(found.status == 200)
                let rows = try #require(try JSONSerialization.jsonObject(with: Data(found.body.utf8)) as? [[String: Any]])
                #expect(rows.count == 1)
                #expect(rows.first?["key"] as? String == "simulated-apple-p256")
                #expect(rows.first?["received-at"] as? String == "2026-05-28T20:26:40.000Z")
                #expect((rows.first?["postback"] as? [String: Any])?["transaction-id"] as? String == postback.transactionID)
                let missing = try await H.get(client, "/postbacks/no-such-id")
                #expect(missing.status == 404)
            }
        }
    }

    @Test("counts received, accepted, duplicate and rejected postbacks in /metrics, by framework", arguments: Transport.allCases)
    func metrics(transport: Transport) async throws {
        try await H.withCollector(transport) { collector, client in
            let body = Array(TestPostbacks.postback().json.utf8)
            _ = try await H.post(client, body)
            _ = try await H.post(client, body)
            _ = try await H.post(client, Array("[]".utf8))
            _ = try await H.post(client, TestPostbacks.aakBody())
            _ = try await H.post(client, Array(#"{"jws-string":"a.b"}"#.utf8))
            let text = try await H.withAdmin(collector, transport) { admin in try await H.get(admin, "/metrics").body }
            #expect(text.contains("skan_postbacks_received_total 5"))
            #expect(text.contains(#"skan_postbacks_accepted_total{framework="skadnetwork"} 1"#))
            #expect(text.contains(#"skan_postbacks_accepted_total{framework="adattributionkit"} 1"#))
            #expect(text.contains(#"skan_postbacks_duplicate_total{framework="skadnetwork"} 1"#))
            #expect(text.contains(#"skan_postbacks_rejected_total{reason="malformed",version="unknown",framework="skadnetwork"} 1"#))
            #expect(text.contains(#"skan_postbacks_rejected_total{reason="malformed",version="unknown",framework="adattributionkit"} 1"#))
            #expect(text.contains("skan_postback_request_duration_seconds_count 5"))
        }
    }

    @Test("stores 200 concurrent copies of one postback once and answers 199 duplicates",
          arguments: Transport.allCases)
    func concurrentCopies(transport: Transport) async throws {
        let stats = try await H.withCollector(transport) { collector, client in
            let body = Array(TestPostbacks.postback().json.utf8)
            let replies = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<200 { group.addTask { try await H.post(client, body).body } }
                var replies: [String] = []
                for try await reply in group { replies.append(reply) }
                return replies
            }
            #expect(replies.filter { $0 == #"{"status":"accepted"}"# }.count == 1)
            #expect(replies.filter { $0 == #"{"status":"duplicate"}"# }.count == 199)
            return try await collector.store.stats()
        }
        #expect(stats.postbacks == 1)
    }
}
