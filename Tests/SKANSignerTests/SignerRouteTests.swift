import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SKANCore
import SKANSigner
import Testing

/// `POST /v1/impressions` signs by `skan sign`'s rules, in order, all or nothing.
@Suite("Impression signer routes")
struct SignerRouteTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func key(_ name: String) throws -> ECPrivateKey {
        let url = root.appendingPathComponent("Keys/test/\(name)-private-key.pem")
        return try ECPrivateKey(pem: String(contentsOf: url, encoding: .utf8), source: name)
    }

    static func withSigner(_ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        var keys = SignerKeys()
        keys.add(try key("ad-network"), network: "example.skadnetwork")
        keys.add(try key("ad-network"), network: "example.adattributionkit")
        keys.add(try key("p192-network"), network: "legacy.skadnetwork")
        let signer = Signer(keys: keys, logger: Logger(label: "test"), now: { Date(timeIntervalSince1970: 1_700_000_000) },
                            makeNonce: { UUID(uuidString: "68753A44-4D6F-1226-9C60-0050E4C00067")! })
        let router = Router()
        signer.addRoutes(to: router)
        try await Application(router: router).test(.router) { client in try await test(client) }
    }

    static func post(_ client: any TestClientProtocol, _ body: String) async throws -> (status: HTTPResponse.Status, body: String) {
        try await client.execute(uri: "/v1/impressions", method: .post, headers: [.contentType: "application/json"],
                                 body: ByteBuffer(string: body)) { ($0.status, String(buffer: $0.body)) }
    }

    @Test("one request gets one signed impression that the impression verifier accepts, with the defaults filled in")
    func single() async throws {
        try await Self.withSigner { client in
            let reply = try await Self.post(client, #"{"version":"4.0","ad-network-id":"example.skadnetwork","source-identifier":5239,"itunes-item-id":525463029,"source-app-id":0}"#)
            #expect(reply.status == .ok)
            let signed = try SignedImpression.parse(Array(reply.body.utf8)).get()
            #expect(signed.impression.nonceText == "68753a44-4d6f-1226-9c60-0050e4c00067")
            #expect(signed.impression.timestamp == 1_700_000_000_000)
            let verifier = ImpressionVerifier(publicKey: try Self.key("ad-network").publicKey)
            #expect(verifier.verify(signed) == .valid)
        }
    }

    @Test("an array is signed in order, SKAdNetwork on both curves and AdAttributionKit beside each other")
    func batch() async throws {
        try await Self.withSigner { client in
            let reply = try await Self.post(client, """
                [{"version":"3.0","ad-network-id":"example.skadnetwork","campaign-id":7,"itunes-item-id":525463029,"source-app-id":0},
                 {"version":"2.0","ad-network-id":"legacy.skadnetwork","campaign-id":8,"itunes-item-id":525463029,"source-app-id":0},
                 {"framework":"adattributionkit","ad-network-id":"example.adattributionkit","source-identifier":5239,"itunes-item-id":525463029},
                 {"format":"aak","ad-network-id":"example.adattributionkit","source-identifier":5240,"itunes-item-id":525463029}]
                """)
            #expect(reply.status == .ok)
            let items = try #require(try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [[String: Any]])
            #expect(items.count == 4)
            #expect(items[0]["SKStoreProductParameterAdNetworkCampaignIdentifier"] as? Int == 7)
            #expect(items[1]["SKStoreProductParameterAdNetworkCampaignIdentifier"] as? Int == 8)
            // "framework", and for one release the older "format": "aak", both sign AdAttributionKit.
            for (item, source) in zip(items[2...], [5239, 5240]) {
                let jws = try #require(item["jws"] as? String)
                let aak = try AAKImpression.verify(jws, publicKey: try Self.key("ad-network").publicKey).get()
                #expect(aak.adNetworkIdentifier == "example.adattributionkit" && aak.impressionIdentifier == "68753A44-4D6F-1226-9C60-0050E4C00067")
                #expect(aak.sourceIdentifier == source)
            }
        }
    }

    @Test("a bad request refuses the whole body, naming its index and the field", arguments: [
        (#"[{"version":"4.0","ad-network-id":"example.skadnetwork","source-identifier":5239,"itunes-item-id":1,"source-app-id":0},{"version":"3.0","ad-network-id":"example.skadnetwork","campaign-id":101,"itunes-item-id":1}]"#, 1, "campaign-id"),
        (#"[{"version":"4.0","ad-network-id":"nobody.skadnetwork","source-identifier":5239,"itunes-item-id":1,"source-app-id":0}]"#, 0, "has no key"),
        (#"[{"version":"4.0","ad-network-id":"example.skadnetwork","source-identifier":5239,"itunes-item-id":1,"source-app-id":0,"colour":"red"}]"#, 0, "colour is not a field"),
        (#"[{"format":"aak","ad-network-id":"legacy.skadnetwork","source-identifier":5239,"itunes-item-id":1,"source-app-id":0}]"#, 0, "P-256"),
        (#"[1]"#, 0, "must be a JSON object"),
        (#"[{"framework":"skadnetwork","ad-network-id":"example.skadnetwork"},{"framework":"xyz","ad-network-id":"example.skadnetwork"}]"#, 1,
         #"framework must be skadnetwork or adattributionkit, got "xyz""#),
        (#"[{"framework":"adattributionkit","version":"4.0","ad-network-id":"example.adattributionkit","source-identifier":5239,"itunes-item-id":1}]"#, 0,
         "version is for SKAdNetwork impressions"),
    ])
    func refusals(body: String, index: Int, reason: String) async throws {
        try await Self.withSigner { client in
            let reply = try await Self.post(client, body)
            #expect(reply.status == .badRequest)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any])
            #expect(json["index"] as? Int == index)
            #expect((json["reason"] as? String)?.contains(reason) == true, "\(reply.body)")
        }
    }

    @Test("more than 1,000 requests, or not JSON, is refused as a whole; keys are listed public only")
    func limitsAndKeys() async throws {
        try await Self.withSigner { client in
            let one = #"{"version":"4.0","ad-network-id":"example.skadnetwork","source-identifier":5239,"itunes-item-id":1,"source-app-id":0}"#
            let tooMany = try await Self.post(client, "[" + Array(repeating: one, count: 1001).joined(separator: ",") + "]")
            #expect(tooMany.status == .badRequest && tooMany.body.contains("up to 1000"))
            let notJSON = try await Self.post(client, "version=4.0")
            #expect(notJSON.status == .badRequest)
            let keys = try await client.execute(uri: "/v1/keys", method: .get) { String(buffer: $0.body) }
            #expect(keys.contains(try Self.key("ad-network").publicKey.base64))
            #expect(!keys.contains("PRIVATE"))
        }
    }
}

/// `POST /v1/openrtb/skadn`: the bid's ext.skadn, signed entries that a device would accept.
@Suite("OpenRTB skadn route")
struct OpenRTBRouteTests {
    typealias S = SignerRouteTests

    static func post(_ client: any TestClientProtocol, _ body: String) async throws -> (status: HTTPResponse.Status, body: String) {
        try await client.execute(uri: "/v1/openrtb/skadn", method: .post, headers: [.contentType: "application/json"],
                                 body: ByteBuffer(string: body)) { ($0.status, String(buffer: $0.body)) }
    }

    @Test("4.0: one entry per fidelity, every value a string but fidelity, each signature valid for its fidelity")
    func fourPointZero() async throws {
        try await S.withSigner { client in
            let reply = try await Self.post(client, #"{"imp-ext-skadn":{"versions":["2.0","2.2","3.0","4.0"],"sourceapp":"880047117","skadnetids":["other.skadnetwork","Example.skadnetwork"]},"itunes-item-id":525463029,"source-identifier":5239}"#)
            #expect(reply.status == .ok)
            let ext = try #require(try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any])
            #expect(ext["version"] as? String == "4.0" && ext["network"] as? String == "example.skadnetwork")
            #expect(ext["sourceidentifier"] as? String == "5239" && ext["itunesitem"] as? String == "525463029")
            #expect(ext["sourceapp"] as? String == "880047117")
            let fidelities = try #require(ext["fidelities"] as? [[String: Any]])
            #expect(fidelities.map { $0["fidelity"] as? Int } == [0, 1])
            let verifier = ImpressionVerifier(publicKey: try S.key("ad-network").publicKey)
            for entry in fidelities {
                let fidelity = try #require(entry["fidelity"] as? Int)
                let impression = Impression(
                    version: .v4_0, kind: fidelity == 0 ? .viewThrough : .storeKitRendered, adNetworkID: "example.skadnetwork",
                    sourceIdentifier: 5239, itunesItemID: 525463029, nonce: UUID(uuidString: try #require(entry["nonce"] as? String))!,
                    sourceAppID: 880047117, timestamp: Int64(try #require(entry["timestamp"] as? String))!)
                let signed = SignedImpression(impression: impression, signature: try #require(entry["signature"] as? String))
                #expect(verifier.verify(signed) == .valid, "fidelity \(fidelity)")
            }
        }
    }

    @Test("2.0 with a campaign: nonce, timestamp and signature at the root; no key for any id: 204; bad: 400")
    func olderAndRefusals() async throws {
        try await S.withSigner { client in
            let old = try await Self.post(client, #"{"imp-ext-skadn":{"version":"2.0","sourceapp":"880047117","skadnetids":["legacy.skadnetwork"]},"itunes-item-id":525463029,"campaign-id":42}"#)
            #expect(old.status == .ok)
            let ext = try #require(try JSONSerialization.jsonObject(with: Data(old.body.utf8)) as? [String: Any])
            #expect(ext["version"] as? String == "2.0" && ext["campaign"] as? String == "42" && ext["fidelities"] == nil)
            #expect(ext["signature"] is String && ext["nonce"] is String)
            let none = try await Self.post(client, #"{"imp-ext-skadn":{"versions":["4.0"],"skadnetids":["nobody.skadnetwork"]},"itunes-item-id":1,"source-identifier":52}"#)
            #expect(none.status == .noContent)
            let bad = try await Self.post(client, #"{"imp-ext-skadn":{"versions":["4.0"],"skadnetids":["example.skadnetwork"]},"itunes-item-id":1,"campaign-id":7}"#)
            #expect(bad.status == .badRequest && bad.body.contains("no version this bid can be signed for"))
        }
    }
}
