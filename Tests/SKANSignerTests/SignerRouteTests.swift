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
                 {"format":"aak","ad-network-id":"example.adattributionkit","source-identifier":5239,"itunes-item-id":525463029}]
                """)
            #expect(reply.status == .ok)
            let items = try #require(try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [[String: Any]])
            #expect(items.count == 3)
            #expect(items[0]["SKStoreProductParameterAdNetworkCampaignIdentifier"] as? Int == 7)
            #expect(items[1]["SKStoreProductParameterAdNetworkCampaignIdentifier"] as? Int == 8)
            let jws = try #require(items[2]["jws"] as? String)
            let aak = try AAKImpression.verify(jws, publicKey: try Self.key("ad-network").publicKey).get()
            #expect(aak.adNetworkIdentifier == "example.adattributionkit" && aak.impressionIdentifier == "68753A44-4D6F-1226-9C60-0050E4C00067")
        }
    }

    @Test("a bad request refuses the whole body, naming its index and the field", arguments: [
        (#"[{"version":"4.0","ad-network-id":"example.skadnetwork","source-identifier":5239,"itunes-item-id":1,"source-app-id":0},{"version":"3.0","ad-network-id":"example.skadnetwork","campaign-id":101,"itunes-item-id":1}]"#, 1, "campaign-id"),
        (#"[{"version":"4.0","ad-network-id":"nobody.skadnetwork","source-identifier":5239,"itunes-item-id":1,"source-app-id":0}]"#, 0, "has no key"),
        (#"[{"version":"4.0","ad-network-id":"example.skadnetwork","source-identifier":5239,"itunes-item-id":1,"source-app-id":0,"colour":"red"}]"#, 0, "colour is not a field"),
        (#"[{"format":"aak","ad-network-id":"legacy.skadnetwork","source-identifier":5239,"itunes-item-id":1,"source-app-id":0}]"#, 0, "P-256"),
        (#"[1]"#, 0, "must be a JSON object"),
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
