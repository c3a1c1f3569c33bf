import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SKANCore
import SKANSigner
import SKANStore
import SKANStoreSQLite
import SKANStorePostgres
import SKANTestSupport
import Synchronization
import Testing

/// SKAdNetwork for Web Ads (spec §7.2): an ad registered on the private port is answered to Safari on the
/// public one, by the link's nonce, until it expires.
@Suite("Web-ad exchange", .temporaryFolder)
struct WebAdTests {
    static let register = #"{"ad-network-id":"example.skadnetwork","source-identifier":3120,"itunes-item-id":525463029,"source-domain":"example.com"}"#

    /// A signer over `store` with a clock the test moves; `test` gets the private and the public client.
    /// A clock the test moves by hand.
    final class TestClock: Sendable {
        private let time = Mutex(Date(timeIntervalSince1970: 1_676_057_605.705))
        var now: Date { time.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    static func withSigner(store: any WebAdStore, clock: TestClock = TestClock(),
                           _ test: @escaping @Sendable (any TestClientProtocol, any TestClientProtocol) async throws -> Void) async throws {
        var keys = SignerKeys()
        keys.add(try SignerRouteTests.key("ad-network"), network: "example.skadnetwork")
        let counter = Mutex(0)
        let signer = Signer(keys: keys, logger: Logger(label: "test"), webAdStore: store, webAdLifetime: 3_600,
                            now: { clock.now },
                            makeNonce: { counter.withLock { $0 += 1; return UUID(uuidString: String(format: "B7C9DA2B-15C7-4F3B-9326-%012X", $0))! } })
        let privateRouter = Router()
        signer.addRoutes(to: privateRouter)
        try await Application(router: privateRouter).test(.router) { privateClient in
            let publicRouter = Router()
            signer.addPublicRoutes(to: publicRouter)
            try await Application(router: publicRouter).test(.router) { publicClient in
                try await test(privateClient, publicClient)
            }
        }
    }

    static func post(_ client: any TestClientProtocol, _ uri: String, _ body: String) async throws -> (status: Int, body: String) {
        try await client.execute(uri: uri, method: .post, headers: [.contentType: "application/json"],
                                 body: ByteBuffer(string: body)) { (Int($0.status.code), String(buffer: $0.body)) }
    }

    static func safari(_ nonce: String, domain: String = "example.com") -> String {
        #"{"source_domain":"\#(domain)","source_engagement_type":"click_to_App_Store","source_nonce":"\#(nonce)","version":"4.0"}"#
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("register, then Safari's request by the link nonce gets an AdImpressionResponse that verifies")
    func flow() async throws {
        try await Self.withSigner(store: MemoryWebAdStore()) { privateClient, publicClient in
            let registered = try await Self.post(privateClient, "/v1/web-ads", Self.register)
            #expect(registered.status == 200, "\(registered.body)")
            let reply = try Self.object(registered.body)
            let linkNonce = try #require(reply["attributionSourceNonce"] as? String)
            #expect(linkNonce.count == 22 && !linkNonce.contains("="))
            #expect(reply["nonce"] as? String == "b7c9da2b-15c7-4f3b-9326-000000000001")
            #expect(reply["href"] as? String == "https://apps.apple.com/app/id525463029")
            let answer = try await Self.post(publicClient, "/.well-known/skadnetwork/get-signed-payload", Self.safari(linkNonce))
            #expect(answer.status == 200)
            // Apple's AdImpressionResponse members exactly (no fidelity member: it is 1, signed only).
            let response = try Self.object(answer.body)
            #expect(Set(response.keys) == ["version", "ad_network_id", "source_identifier", "itunes_item_id", "nonce",
                                           "source_domain", "timestamp", "signature"])
            let signed = try SignedImpression.parse(Array(answer.body.utf8)).get()
            #expect(signed.impression.kind == .web && signed.impression.sourceDomain == "example.com")
            #expect(ImpressionVerifier(publicKey: try SignerRouteTests.key("ad-network").publicKey).verify(signed) == .valid)
        }
    }

    @Test("Apple's example pair: the 22-character nonce is the base64url of the dashed UUID's bytes")
    func appleEncodings() throws {
        let nonce = try #require(UUID(uuidString: "b7c9da2b-15c7-4f3b-9326-135f9630033d"))
        let bytes = withUnsafeBytes(of: nonce.uuid) { Array($0) }
        #expect(Base64URL.encode(bytes) == "t8naKxXHTzuTJhNfljADPQ")
    }

    @Test("unknown, expired and other-site nonces are 404; a nonce that is not 16 bytes is a 400 naming source_nonce")
    func refusals() async throws {
        let clock = TestClock()
        try await Self.withSigner(store: MemoryWebAdStore(), clock: clock) { privateClient, publicClient in
            let reply = try Self.object(try await Self.post(privateClient, "/v1/web-ads", Self.register).body)
            let linkNonce = try #require(reply["attributionSourceNonce"] as? String)
            let path = "/.well-known/skadnetwork/get-signed-payload"
            #expect(try await Self.post(publicClient, path, Self.safari("AAAAAAAAAAAAAAAAAAAAAA")).status == 404)
            #expect(try await Self.post(publicClient, path, Self.safari(linkNonce, domain: "example.org")).status == 404)
            for bad in ["abc", linkNonce + "=", String(linkNonce.dropLast()), "t8naKxXHTzuTJhNfljADPQAA"] {
                let answer = try await Self.post(publicClient, path, Self.safari(bad))
                #expect(answer.status == 400 && answer.body.contains("\"field\":\"source_nonce\""), "\(bad): \(answer.body)")
            }
            #expect(try await Self.post(publicClient, path, "not json").status == 400)
            clock.advance(3_599)
            #expect(try await Self.post(publicClient, path, Self.safari(linkNonce)).status == 200)
            clock.advance(1)
            #expect(try await Self.post(publicClient, path, Self.safari(linkNonce)).status == 404)
        }
    }

    @Test("a bad registration is a 400 naming the field, and nothing is stored")
    func badRegistrations() async throws {
        let store = MemoryWebAdStore()
        try await Self.withSigner(store: store) { privateClient, _ in
            let cases: [(String, String)] = [
                (#"{"ad-network-id":"example.skadnetwork","source-identifier":3120,"itunes-item-id":525463029}"#, "source-domain"),
                (#"{"ad-network-id":"example.skadnetwork","source-identifier":3120,"itunes-item-id":525463029,"source-domain":"example.com","nonce":"68753a44-4d6f-1226-9c60-0050e4c00067"}"#, "nonce"),
                (#"{"ad-network-id":"example.skadnetwork","source-identifier":3120,"itunes-item-id":525463029,"source-domain":"example.com","source-app-id":1}"#, "source-app-id"),
                (#"{"ad-network-id":"other.skadnetwork","source-identifier":3120,"itunes-item-id":525463029,"source-domain":"example.com"}"#, "ad-network-id"),
                (#"{"ad-network-id":"example.skadnetwork","source-identifier":31200,"itunes-item-id":525463029,"source-domain":"example.com"}"#, "source-identifier"),
                (#"{"ad-network-id":"example.skadnetwork","source-identifier":3120,"itunes-item-id":525463029,"source-domain":"example.com","version":"3.0"}"#, "version"),
            ]
            for (body, field) in cases {
                let reply = try await Self.post(privateClient, "/v1/web-ads", body)
                #expect(reply.status == 400 && reply.body.contains(field), "\(field): \(reply.body)")
            }
        }
        #expect(try await store.removeExpired(at: .distantFuture) == 0)
    }

    @Test("every engine keeps, finds, expires and removes registered ads alike",
          arguments: ["memory", "sqlite", "postgres"])
    func engines(engine: String) async throws {
        let folder = try TemporaryFolder.current.url
        let store: any WebAdStore
        switch engine {
        case "memory": store = MemoryWebAdStore()
        case "sqlite": store = try SQLiteWebAdStore(path: folder.appendingPathComponent("ads.sqlite").path)
        default:
            guard let server = PostgresTestServer.shared else {
                #expect(!PostgresTestServer.isRequired, "SKAN_REQUIRE_POSTGRES=1, but no PostgreSQL test server")
                return
            }
            store = PostgresWebAdStore(try PostgresStoreConfiguration(url: try server.makeDatabase()))
        }
        try await StoreHost.running([store]) {
            try await store.migrate()
            try await store.migrate()  // idempotent
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            let ads = (0..<3).map { index in
                RegisteredWebAd(nonce: UUID(), sourceDomain: "site\(index).example", response: #"{"n":\#(index)}"#,
                                expiresAt: start.addingTimeInterval(Double(index + 1) * 60))
            }
            for ad in ads { try await store.register(ad) }
            await #expect(throws: StoreError.self) { try await store.register(ads[0]) }
            #expect(try await store.ad(nonce: ads[1].nonce, at: start)?.response == #"{"n":1}"#)
            #expect(try await store.ad(nonce: ads[1].nonce, at: start)?.sourceDomain == "site1.example")
            #expect(try await store.ad(nonce: UUID(), at: start) == nil)
            #expect(try await store.ad(nonce: ads[0].nonce, at: start.addingTimeInterval(60)) == nil)
            #expect(try await store.count() == 3)
            #expect(try await store.removeExpired(at: start.addingTimeInterval(120)) == 2)
            #expect(try await store.count() == 1)
            #expect(try await store.ad(nonce: ads[2].nonce, at: start.addingTimeInterval(120))?.response == #"{"n":2}"#)
            try await store.close()
        }
    }
}
