import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import SKANSigner
import SKANStore
import Synchronization
import Testing

/// Web-ad registrations are bounded (issue 32: 119,981 in 15 s, 61.5 MB, swept only with `--public-port`): past
/// the limit a registration is refused, and expired ads are swept whether or not Safari's listener runs.
@Suite("Web-ad registration limit and sweep", .timeLimit(.minutes(1)))
struct WebAdCapTests {
    static func signer(store: any WebAdStore, clock: WebAdTests.TestClock, maximum: Int,
                       sweep: Duration = .seconds(60)) throws -> Signer {
        var keys = SignerKeys()
        keys.add(try SignerRouteTests.key("ad-network"), network: "example.skadnetwork")
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return Signer(keys: keys, port: 0, logger: logger, webAdStore: store, webAdLifetime: 60, maximumWebAds: maximum,
                      webAdSweepInterval: sweep, now: { clock.now })
    }

    /// Runs the signer's services (no public port) in their one service group until `body` returns.
    static func running<T: Sendable>(_ signer: Signer, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await signer.composition().serve { _ in try await body() }
    }

    /// Polls `condition` every 20 ms for up to 10 s.
    static func eventually(_ condition: @Sendable () async throws -> Bool) async throws -> Bool {
        for _ in 0..<500 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test("past the limit a registration is a 503 naming --max-web-ads, and nothing more is stored")
    func limit() async throws {
        let store = MemoryWebAdStore()
        let signer = try Self.signer(store: store, clock: WebAdTests.TestClock(), maximum: 2)
        let router = Router()
        signer.addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            for _ in 0..<2 { #expect(try await WebAdTests.post(client, "/v1/web-ads", WebAdTests.register).status == 200) }
            let refused = try await WebAdTests.post(client, "/v1/web-ads", WebAdTests.register)
            #expect(refused.status == 503, "\(refused.body)")
            #expect(refused.body.contains("--max-web-ads") && refused.body.contains("\"status\":\"unavailable\""), "\(refused.body)")
        }
        #expect(try await store.count() == 2)
    }

    @Test("expired ads are swept without a public port, and the room they leave is taken again")
    func sweptWithoutPublicPort() async throws {
        let store = MemoryWebAdStore()
        let clock = WebAdTests.TestClock()
        // Registered before the signer starts and long expired: the signer has no public port.
        try await store.register(RegisteredWebAd(nonce: UUID(), sourceDomain: "example.com", response: "{}",
                                                 expiresAt: clock.now.addingTimeInterval(-1)))
        let signer = try Self.signer(store: store, clock: clock, maximum: 1, sweep: .milliseconds(50))
        try await Self.running(signer) {
            let swept = try await Self.eventually { try await store.count() == 0 }
            #expect(swept, "the expired ad was never swept")
            let router = Router()
            signer.addRoutes(to: router)
            try await Application(router: router).test(.router) { client in
                #expect(try await WebAdTests.post(client, "/v1/web-ads", WebAdTests.register).status == 200)
                #expect(try await WebAdTests.post(client, "/v1/web-ads", WebAdTests.register).status == 503)
                clock.advance(61)
                let retaken = try await Self.eventually {
                    try await WebAdTests.post(client, "/v1/web-ads", WebAdTests.register).status == 200
                }
                #expect(retaken, "the room left by the expired ad was never taken again")
            }
        }
    }
}
