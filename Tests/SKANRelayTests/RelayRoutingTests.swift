import Crypto
import Foundation
import SKANCore
@testable import SKANRelay
import SKANStore
import SKANTestSupport
import Testing

/// Which postbacks go where, what they carry, and how a failed attempt is judged.
@Suite("Relay routing")
struct RelayRoutingTests {
    static func accepted(endpoint: String = "/postbacks", transactionID: String = "t-1") -> AcceptedPostback {
        let (verified, body) = TestPostbacks.verified(transactionID: transactionID)
        return AcceptedPostback(attribution: verified, rawBody: body, receivedAt: Date(timeIntervalSince1970: 1_780_000_000),
                                endpoint: endpoint)
    }

    static func destination(_ name: String, filter: RelayFilter = RelayFilter(), body: RelayBody = .received) -> RelayDestination {
        RelayDestination(name: name, url: URL(string: "http://127.0.0.1:1/")!, filter: filter, body: body)
    }

    @Test("filters by framework, network, app, copy and path")
    func filters() {
        let postback = Self.accepted()
        #expect(RelayFilter().takes(postback))
        #expect(RelayFilter(frameworks: [.skadnetwork]).takes(postback))
        #expect(!RelayFilter(frameworks: [.adAttributionKit]).takes(postback))
        #expect(!RelayFilter(adNetworkIDs: ["other.skadnetwork"]).takes(postback))
        #expect(RelayFilter(appIDs: [525463029]).takes(postback))
        #expect(!RelayFilter(copies: [.developer]).takes(postback))
        #expect(RelayFilter(copies: [.winning]).takes(postback))
        #expect(RelayFilter(copies: [.developer]).takes(Self.accepted(endpoint: "/.well-known/skadnetwork/report-attribution/")))
        #expect(!RelayFilter(paths: ["/other"]).takes(postback))
    }

    @Test("the key is the same for one postback and destination, different across them")
    func keys() {
        let router = RelayRouter(configuration: RelayConfiguration(destinations: [Self.destination("a"), Self.destination("b")]))
        let postback = Self.accepted()
        let first = router.items(for: postback, arrival: Arrival())
        let again = router.items(for: Self.accepted(), arrival: Arrival())
        #expect(first.map(\.idempotencyKey) == again.map(\.idempotencyKey))
        #expect(Set(first.map(\.idempotencyKey)).count == 2)
        #expect(router.items(for: Self.accepted(transactionID: "t-2"), arrival: Arrival())[0].idempotencyKey != first[0].idempotencyKey)
        #expect(first[0].body == postback.rawBody)
    }

    @Test("the key's format never changes: entries queued by an older build and replays must carry the same key")
    func keyFormat() {
        let key = Self.accepted().dedupKey
        // The documented formula, spelled out apart from the implementation: the first 16 bytes, in hex, of SHA-256
        // over the destination, framework, network, id and window, each followed by a NUL.
        let text = ["a", key.framework.rawValue, key.network, key.dedupID, String(key.window)].map { $0 + "\u{0}" }.joined()
        let expected = SHA256.hash(data: Array(text.utf8)).prefix(16).map { String($0, radix: 16) }
            .map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        #expect(RelayRouter.idempotencyKey(destination: "a", key) == expected)
        #expect(expected.count == 32)
    }

    @Test("json bodies get the named members: the address and user agent the HTTP layer gave, null when unknown")
    func extras() throws {
        let destination = Self.destination("a", body: .json(adding: [.receivedAt, .ipAddress, .userAgent]))
        let router = RelayRouter(configuration: RelayConfiguration(destinations: [destination]))
        let known = router.items(for: Self.accepted(), arrival: Arrival(clientAddress: "203.0.113.9", userAgent: "ua/1"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(known[0].body)) as? [String: Any])
        #expect(object["ip-address"] as? String == "203.0.113.9")
        #expect(object["user-agent"] as? String == "ua/1")
        #expect(object["received-at"] as? String == "2026-05-28T20:26:40.000Z")
        #expect(object["transaction-id"] as? String == "t-1")
        let unknown = router.items(for: Self.accepted(), arrival: Arrival())
        let withNulls = try #require(try JSONSerialization.jsonObject(with: Data(unknown[0].body)) as? [String: Any])
        #expect(withNulls["ip-address"] is NSNull)
        #expect(withNulls["user-agent"] is NSNull)
        #expect(Array(RelayRouter.adding(#"{"a":1}"#, to: Array("{ }".utf8))) == Array(#"{ "a":1}"#.utf8))
    }

    @Test("judges attempts: 2xx sent, 408/429/5xx and failures retried, other 4xx dead after a few, too old dead")
    func attempts() {
        let destination = RelayDestination(name: "a", url: URL(string: "http://x/")!, maximumAge: .seconds(3600), deadAfter: 2)
        let now = Date(timeIntervalSince1970: 1_000_000)
        let entry = OutboxEntry(id: 7, item: OutboxItem(destination: "a", idempotencyKey: "k", body: []), attempts: 0, createdAt: now)
        let backoff = RelayBackoff(base: .seconds(10), cap: .seconds(100))
        func judge(_ attempt: RelayAttempt, _ entry: OutboxEntry = entry) -> OutboxSettlement {
            attempt.settlement(of: entry, destination: destination, backoff: backoff, now: now, jitter: 1)
        }
        #expect(judge(.answered(status: 204, retryAfter: nil)) == .sent(id: 7))
        #expect(judge(.answered(status: 503, retryAfter: nil)) == .retry(id: 7, at: now + 10, error: "HTTP 503"))
        #expect(judge(.answered(status: 429, retryAfter: "120")) == .retry(id: 7, at: now + 120, error: "HTTP 429"))
        #expect(judge(.answered(status: 408, retryAfter: nil)) == .retry(id: 7, at: now + 10, error: "HTTP 408"))
        #expect(judge(.failed("refused")) == .retry(id: 7, at: now + 10, error: "refused"))
        #expect(judge(.answered(status: 404, retryAfter: nil)) == .retry(id: 7, at: now + 10, error: "HTTP 404"))
        var second = entry
        second.attempts = 1
        #expect(judge(.answered(status: 404, retryAfter: nil), second) == .dead(id: 7, error: "HTTP 404"))
        #expect(judge(.answered(status: 503, retryAfter: nil), second) == .retry(id: 7, at: now + 20, error: "HTTP 503"))
        #expect(judge(.stopped) == .release(id: 7, at: now))
        var old = entry
        old.createdAt = now - 3595
        #expect(judge(.answered(status: 500, retryAfter: nil), old) == .dead(id: 7, error: "gave up after 1 attempts: HTTP 500"))
        #expect(backoff.delay(afterAttempts: 5, jitter: 1) == .seconds(100))
        #expect(backoff.delay(afterAttempts: 1, jitter: 0) == .seconds(5))
        #expect(RelayBackoff.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: Date(timeIntervalSince1970: 1_445_412_420)) == .seconds(60))
    }
}

extension Date {
    static func - (date: Date, seconds: Int) -> Date { date.addingTimeInterval(-TimeInterval(seconds)) }
}
