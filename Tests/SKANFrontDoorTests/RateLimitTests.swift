import Foundation
import Logging
import SKANCollector
import SKANHTTP
import SKANSigner
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Synchronization
import Testing

/// The per-client rate limit of the device routes (issue 38): a token bucket per address in a bounded table, 429
/// with `Retry-After` past the budget and never under it, on the event-loop fast path and the router alike, and
/// `X-Forwarded-For` believed only from a trusted proxy.
@Suite("Rate limits", .timeLimit(.minutes(1)))
struct RateLimitTests {
    /// A clock the test moves.
    final class TestClock: Sendable {
        let nanoseconds = Atomic<UInt64>(1_000_000_000)
        func advance(seconds: Double) { nanoseconds.add(UInt64(seconds * 1e9), ordering: .relaxed) }
        var read: @Sendable () -> UInt64 { { self.nanoseconds.load(ordering: .relaxed) } }
    }

    static let a = IPAddress("192.0.2.1")!
    static let b = IPAddress("192.0.2.2")!

    @Test("admits the burst, refuses the next with the seconds until a token, and admits again once one is there")
    func bucket() {
        let clock = TestClock()
        let limiter = RateLimiter(.init(perSecond: 0.5, burst: 3), now: clock.read)
        #expect((0 ..< 3).map { _ in limiter.admit(Self.a) } == Array(repeating: .admitted, count: 3))
        #expect(limiter.admit(Self.a) == .refused(retryAfter: 2))
        #expect(limiter.admit(Self.b) == .admitted, "another address has its own bucket")
        clock.advance(seconds: 2)
        #expect(limiter.admit(Self.a) == .admitted)
        #expect(limiter.admit(Self.a) == .refused(retryAfter: 2))
        #expect(limiter.refused == 2)
    }

    @Test("never refuses a client that stays under its rate, however long it sends")
    func underBudget() {
        let clock = TestClock()
        let limiter = RateLimiter(.init(perSecond: 10, burst: 5), now: clock.read)
        for _ in 0 ..< 10_000 {
            #expect(limiter.admit(Self.a) == .admitted)
            clock.advance(seconds: 0.1)
        }
        #expect(limiter.refused == 0)
    }

    @Test("tracks at most its capacity of clients, forgetting the oldest; IPv6 clients count by their /64")
    func bounded() {
        let clock = TestClock()
        let limiter = RateLimiter(.init(perSecond: 0.001, burst: 1, capacity: 4), now: clock.read)
        #expect(limiter.admit(Self.a) == .admitted)
        #expect(limiter.admit(Self.a) != .admitted)
        for host in 10 ..< 1010 { _ = limiter.admit(IPAddress("198.51.100.\(host % 250)") ?? Self.b) }
        #expect(limiter.tracked == 4)
        #expect(limiter.admit(Self.a) == .admitted, "forgotten, so a full bucket again")
        #expect(limiter.admit(IPAddress("2001:db8:1:2::1")!) == .admitted)
        #expect(limiter.admit(IPAddress("2001:db8:1:2:ffff::9")!) != .admitted, "the same /64")
        #expect(limiter.admit(IPAddress("2001:db8:1:3::1")!) == .admitted)
    }

    @Test("X-Forwarded-For counts only from a trusted proxy: the right-most entry not itself trusted")
    func clientAddress() throws {
        let proxy = IPAddress("10.0.0.5")!
        let untrusted = ClientAddress()
        #expect(untrusted.resolve(peer: proxy, forwardedFor: ["203.0.113.9"]) == proxy)
        let trusted = ClientAddress(trustedProxies: [try AddressRange("10.0.0.0/8"), try AddressRange("2001:db8::/32")])
        #expect(trusted.resolve(peer: Self.a, forwardedFor: ["203.0.113.9"]) == Self.a, "a client's own header")
        #expect(trusted.resolve(peer: proxy, forwardedFor: ["198.51.100.1, 203.0.113.9, 10.1.1.1"]) == IPAddress("203.0.113.9"))
        #expect(trusted.resolve(peer: proxy, forwardedFor: ["198.51.100.1", "203.0.113.9"]) == IPAddress("203.0.113.9"))
        #expect(trusted.resolve(peer: proxy, forwardedFor: ["10.2.2.2"]) == IPAddress("10.2.2.2"), "all trusted: the farthest")
        #expect(trusted.resolve(peer: proxy, forwardedFor: ["unknown, 10.2.2.2"]) == IPAddress("10.2.2.2"))
        #expect(trusted.resolve(peer: IPAddress("2001:db8::7")!, forwardedFor: ["2001:db9::1"]) == IPAddress("2001:db9::1"))
        #expect(trusted.resolve(peer: proxy, forwardedFor: []) == proxy)
        #expect(IPAddress("2001:db8::1")!.description == "2001:db8::1" && Self.a.description == "192.0.2.1")
        #expect(throws: AddressRangeError(reason: "--trusted-proxy's prefix length must be 0 to 32 for 10.0.0.0, got \"33\"")) {
            try AddressRange("10.0.0.0/33")
        }
        #expect(throws: AddressRangeError.self) { try AddressRange("proxy.internal") }
    }

    /// A collector on port 0 with a limit of `burst` postbacks and next to no refill, answering on the event loop or
    /// through the router.
    static func collector(burst: Int, onEventLoop: Bool, trusted: [String] = []) throws -> Collector {
        var configuration = CollectorConfiguration(port: 0, answersPostbacksOnEventLoop: onEventLoop)
        configuration.rateLimit = RateLimiter.Configuration(perSecond: 0.001, burst: burst)
        configuration.clientAddress = ClientAddress(trustedProxies: try trusted.map { try AddressRange($0) })
        return try Collector(configuration: configuration, store: try SQLitePostbackStore(inMemoryWith: RejectionCap()),
                             verifier: TestPostbacks.verifier, logger: ListenerUnderTest.quiet)
    }

    static func postback(forwardedFor: String? = nil) -> String {
        RawHTTP.post(TestPostbacks.postback().json, path: "/postbacks",
                     extraHeaders: forwardedFor.map { "X-Forwarded-For: \($0)\r\n" } ?? "")
    }

    @Test("past its budget a client is answered 429 with Retry-After, in order, on the fast path and the router alike; probes are never limited",
          arguments: [true, false])
    func collectorLimit(onEventLoop: Bool) async throws {
        let collector = try Self.collector(burst: 2, onEventLoop: onEventLoop)
        let replies = try await collector.serve { port in
            // Pipelined on one connection: the refused one must not overtake those before it.
            let text = try await RawHTTP.exchange(port: port, (0 ..< 3).map { _ in Self.postback() }.joined()
                                                  + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\nGET /readyz HTTP/1.1\r\nHost: t\r\n\r\n",
                                                  responses: 5)
            let again = try await RawHTTP.exchange(port: port, Self.postback(), responses: 1)
            return RawHTTP.parse(text) + RawHTTP.parse(again)
        }
        #expect(replies.map(\.status) == [200, 200, 429, 200, 200, 429])
        #expect(replies[2].headers["retry-after"] == "1000")
        #expect(replies[2].body.contains("rate-limited"))
        let metrics = collector.metrics.exposition()
        #expect(metrics.contains("skan_requests_rate_limited_total 2"), "\(metrics)")
    }

    @Test("X-Forwarded-For from an untrusted peer is ignored; from a trusted proxy each client has its own budget")
    func forwardedFor() async throws {
        let untrusted = try await Self.collector(burst: 1, onEventLoop: true).serve { port in
            RawHTTP.parse(try await RawHTTP.exchange(port: port, Self.postback(forwardedFor: "203.0.113.1")
                                                     + Self.postback(forwardedFor: "203.0.113.2"), responses: 2))
        }
        #expect(untrusted.map(\.status) == [200, 429])
        let behindProxy = try await Self.collector(burst: 1, onEventLoop: true, trusted: ["127.0.0.1"]).serve { port in
            RawHTTP.parse(try await RawHTTP.exchange(port: port, Self.postback(forwardedFor: "203.0.113.1")
                                                     + Self.postback(forwardedFor: "203.0.113.2")
                                                     + Self.postback(forwardedFor: "203.0.113.1"), responses: 3))
        }
        #expect(behindProxy.map(\.status) == [200, 200, 429])
    }

    @Test("the signer's public get-signed-payload is limited per client too")
    func signerPublic() async throws {
        let signer = Signer(keys: SignerKeys(), port: 0, logger: ListenerUnderTest.quiet, webAdStore: MemoryWebAdStore(),
                            publicHost: "127.0.0.1", publicPort: 0,
                            publicRateLimit: RateLimiter.Configuration(perSecond: 0.001, burst: 2))
        let replies = try await signer.composition().serve { bound in
            let request = RawHTTP.post(#"{"nonce":"x"}"#, path: Signer.signedPayloadPath)
            return RawHTTP.parse(try await RawHTTP.exchange(port: bound["public"] ?? 0, request + request + request,
                                                            responses: 3))
        }
        #expect(replies.count == 3 && replies[0].status != 429 && replies[1].status != 429)
        #expect(replies.last?.status == 429)
    }
}
