import Crypto
import Foundation
import HTTPTypes
import SKANCore
import SKANRelay
import SKANStore
import SKANStorePostgres
import SKANStoreSQLite
import SKANTestSupport
import Synchronization
import Testing

/// The relay against a real local HTTP receiver that fails, stalls, answers 429, is down, or answers garbage.
@Suite("Relay delivery", .temporaryFolder)
struct RelayDeliveryTests {
    typealias H = RelayHarness

    /// The stores the delivery tests run on: SQLite, memory, and PostgreSQL when the test server is up.
    static let kinds = ["sqlite", "memory"] + (PostgresTestServer.isAvailable ? ["postgres"] : [])

    /// A store for a test: SQLite on a file (durable), in memory, or a new PostgreSQL database.
    static func store(_ kind: String) async throws -> any PostbackStore & Outbox {
        if kind == "postgres" {
            let server = try #require(PostgresTestServer.shared)
            return try await PostgresPostbackStore.open(try PostgresStoreConfiguration(url: try server.makeDatabase()))
        }
        if kind == "sqlite" {
            let path = try TemporaryFolder.current.path("relay-\(UUID().uuidString).sqlite")
            return try await SQLitePostbackStore.open(path: path, durability: .normal)
        }
        return MemoryPostbackStore()
    }

    @Test("every postback reaches a receiver that fails at first, with the same key on every attempt",
          arguments: kinds)
    func failingAtFirst(_ kind: String) async throws {
        let store = try await Self.store(kind)
        try await StoreHost.running([store]) {
            let receiver = Receiver { _, attempt in attempt <= 2 ? .status(503) : .accept }
            let port = try await receiver.start()
            let configuration = RelayConfiguration(destinations: [H.destination(port: port)])
            let keys = try await H.write(20, to: store, configuration: configuration)
            let relay = H.start(H.service(configuration, outbox: store, clock: H.TestClock()))
            #expect(await H.eventually { receiver.accepted.count == 20 })
            // The receiver counts a postback before its answer reaches the relay: wait for the settlement.
            #expect(try await H.eventually { try await store.depths().allSatisfy { $0.pending == 0 && $0.dead == 0 } })
            relay.cancel()
            _ = try? await relay.value
            #expect(Set(receiver.accepted.keys) == Set(keys))
            // Three attempts each, all with the same key and body.
            for key in keys {
                let attempts = receiver.attempts.filter { $0.key == key }
                #expect(attempts.count == 3)
                #expect(Set(attempts.map(\.body)).count == 1)
            }
            await receiver.stop()
            try await store.close()
        }
    }

    @Test("a receiver that stalls is cut at the timeout and tried again")
    func stall() async throws {
        let store = MemoryPostbackStore()
        let receiver = Receiver { _, attempt in attempt == 1 ? .stall : .accept }
        let port = try await receiver.start()
        let configuration = RelayConfiguration(destinations: [H.destination(port: port, timeout: .milliseconds(300))])
        let keys = try await H.write(3, to: store, configuration: configuration)
        let relay = H.start(H.service(configuration, outbox: store, clock: H.TestClock()))
        #expect(await H.eventually { receiver.accepted.count == 3 })
        relay.cancel()
        _ = try? await relay.value
        for key in keys { #expect(receiver.attempts(of: key) == 2) }
        await receiver.stop()
    }

    @Test("a request that times out on a kept connection is not sent again at once: a batch stays within its lease")
    func timeoutOnKeptConnection() async throws {
        let store = MemoryPostbackStore()
        let stalled = Mutex<String?>(nil)
        // The first postback is answered (its connection is kept); the second, sent on that connection, stalls.
        let receiver = Receiver { key, attempt in
            let first = stalled.withLock { name -> Bool in
                if name == nil { name = "" }
                else if name == "" { name = key }
                return name == ""
            }
            return !first && stalled.withLock { $0 } == key && attempt == 1 ? .stall : .accept
        }
        let port = try await receiver.start()
        let configuration = RelayConfiguration(destinations: [H.destination(port: port, inFlight: 1, timeout: .milliseconds(300))])
        try await H.write(2, to: store, configuration: configuration)
        let relay = H.start(H.service(configuration, outbox: store, clock: H.TestClock()))
        #expect(try await H.eventually { try await store.depths().first?.lastError != nil })
        let key = try #require(stalled.withLock { $0 })
        // Once, not once more on a fresh connection within the same batch.
        #expect(receiver.attempts(of: key) == 1)
        #expect(await H.eventually { receiver.accepted.count == 2 })
        relay.cancel()
        _ = try? await relay.value
        await receiver.stop()
    }

    @Test("429 waits for its Retry-After")
    func retryAfter() async throws {
        let store = MemoryPostbackStore()
        let receiver = Receiver { _, attempt in attempt == 1 ? .status(429, retryAfter: "3600") : .accept }
        let port = try await receiver.start()
        let configuration = RelayConfiguration(destinations: [H.destination(port: port)])
        let clock = H.TestClock()
        let keys = try await H.write(1, to: store, configuration: configuration)
        let relay = H.start(H.service(configuration, outbox: store, clock: clock))
        #expect(try await H.eventually { try await store.depths().first?.lastError == "HTTP 429" })
        // Backoff alone would have tried again within 100 ms; the receiver asked for an hour.
        try await Task.sleep(for: .milliseconds(400))
        #expect(receiver.attempts(of: keys[0]) == 1)
        clock.advance(seconds: 3601)
        #expect(await H.eventually { receiver.accepted.count == 1 })
        relay.cancel()
        _ = try? await relay.value
        await receiver.stop()
    }

    @Test("a receiver that is down and then up gets everything", arguments: kinds)
    func downThenUp(_ kind: String) async throws {
        let store = try await Self.store(kind)
        try await StoreHost.running([store]) {
            // A port that was free a moment ago: nothing listens there yet.
            let probe = Receiver()
            let port = try await probe.start()
            await probe.stop()
            let configuration = RelayConfiguration(destinations: [H.destination(port: port)])
            let keys = try await H.write(10, to: store, configuration: configuration)
            let relay = H.start(H.service(configuration, outbox: store, clock: H.TestClock()))
            #expect(try await H.eventually { try await store.depths().first?.lastError != nil })
            #expect(try await store.depths().first?.pending == 10)
            let receiver = Receiver()
            _ = try await receiver.start(port: port)
            // AsyncHTTPClient backs off connecting after refusals, so the first success may take seconds.
            #expect(await H.eventually(within: 60) { receiver.accepted.count == 10 })
            #expect(Set(receiver.accepted.keys) == Set(keys))
            relay.cancel()
            _ = try? await relay.value
            await receiver.stop()
            try await store.close()
        }
    }

    @Test("a 404 makes dead letters after a few tries, kept, countable and revivable")
    func deadLetters() async throws {
        let store = MemoryPostbackStore()
        let receiver = Receiver { _, _ in .status(404) }
        let port = try await receiver.start()
        let configuration = RelayConfiguration(destinations: [H.destination(port: port, deadAfter: 2)])
        let keys = try await H.write(5, to: store, configuration: configuration)
        let relay = H.start(H.service(configuration, outbox: store, clock: H.TestClock()))
        #expect(try await H.eventually { try await store.depths().first?.dead == 5 })
        try await Task.sleep(for: .milliseconds(200))
        relay.cancel()
        _ = try? await relay.value
        let depth = try #require(try await store.depths().first)
        #expect(depth.pending == 0)
        #expect(depth.lastError == "HTTP 404")
        for key in keys { #expect(receiver.attempts(of: key) == 2) }
        #expect(try await store.reviveDead(destination: "partner", now: Date()) == 5)
        #expect(try await store.depths().first?.pending == 5)
        await receiver.stop()
    }

    @Test("a receiver that answers garbage is retried, never counted as sent")
    func garbage() async throws {
        let store = MemoryPostbackStore()
        let (port, channel) = try await GarbageServer.start()
        let configuration = RelayConfiguration(destinations: [H.destination(port: port)])
        try await H.write(2, to: store, configuration: configuration)
        let relay = H.start(H.service(configuration, outbox: store, clock: H.TestClock()))
        #expect(try await H.eventually { try await store.depths().first?.lastError != nil })
        try await Task.sleep(for: .milliseconds(200))
        relay.cancel()
        _ = try? await relay.value
        let depth = try #require(try await store.depths().first)
        #expect(depth.pending == 2)
        #expect(depth.dead == 0)
        try await channel.close()
    }

    @Test("an https destination speaks TLS: a plain-HTTP receiver on its port gets no request, the entries stay queued")
    func httpsSpeaksTLS() async throws {
        let store = MemoryPostbackStore()
        let receiver = Receiver()
        let port = try await receiver.start()
        var destination = H.destination(port: port, timeout: .seconds(2))
        destination.url = URL(string: "https://127.0.0.1:\(port)/in")!
        let configuration = RelayConfiguration(destinations: [destination])
        try await H.write(2, to: store, configuration: configuration)
        let relay = H.start(H.service(configuration, outbox: store, clock: H.TestClock()))
        #expect(try await H.eventually { try await store.depths().first?.lastError != nil })
        relay.cancel()
        _ = try? await relay.value
        #expect(receiver.attempts.isEmpty)
        #expect(try await store.depths().first?.pending == 2)
        await receiver.stop()
    }

    @Test("many postbacks over a few kept connections: each sent once, in any order, none lost", arguments: kinds)
    func keepAlive(_ kind: String) async throws {
        let store = try await Self.store(kind)
        try await StoreHost.running([store]) {
            let receiver = Receiver()
            let port = try await receiver.start()
            let configuration = RelayConfiguration(destinations: [H.destination(port: port, inFlight: 3)])
            let keys = try await H.write(100, to: store, configuration: configuration)
            let relay = H.start(H.service(configuration, outbox: store, clock: H.TestClock()))
            #expect(await H.eventually { receiver.accepted.count == 100 })
            // The receiver counts a postback before its answer reaches the relay: wait for the settlement.
            #expect(try await H.eventually { try await store.depths().allSatisfy { $0.pending == 0 } })
            relay.cancel()
            _ = try? await relay.value
            #expect(Set(receiver.accepted.keys) == Set(keys))
            #expect(keys.allSatisfy { receiver.attempts(of: $0) == 1 })
            await receiver.stop()
            try await store.close()
        }
    }

    @Test("sends the destination's headers and an HMAC-SHA256 of the body")
    func headersAndSignature() async throws {
        let store = MemoryPostbackStore()
        let receiver = Receiver()
        let port = try await receiver.start()
        let secret = Array("s3cret".utf8)
        let configuration = RelayConfiguration(destinations: [H.destination(
            port: port, headers: [RelayHeader(name: "Authorization", value: "Bearer abc")],
            signature: RelaySignature(header: "X-Signature", secret: secret))])
        try await H.write(1, to: store, configuration: configuration)
        let relay = H.start(H.service(configuration, outbox: store, clock: H.TestClock()))
        #expect(await H.eventually { receiver.accepted.count == 1 })
        relay.cancel()
        _ = try? await relay.value
        let attempt = try #require(receiver.attempts.first)
        #expect(attempt.headers[.authorization] == "Bearer abc")
        let expected = HMAC<SHA256>.authenticationCode(for: attempt.body, using: SymmetricKey(data: secret))
            .map { String(format: "%02x", $0) }.joined()
        #expect(attempt.headers[HTTPField.Name("X-Signature")!] == expected)
        #expect(attempt.headers[.contentType] == "application/json")
        await receiver.stop()
    }

    @Test("stopping while a receiver stalls releases the entries: due at once, no attempt counted")
    func shutdownReleases() async throws {
        let store = try await Self.store("sqlite")
        let receiver = Receiver { _, _ in .stall }
        let port = try await receiver.start()
        let configuration = RelayConfiguration(destinations: [H.destination(port: port)])
        try await H.write(3, to: store, configuration: configuration)
        let relay = H.start(H.service(configuration, outbox: store, clock: H.TestClock()))
        #expect(await H.eventually { receiver.attempts.count == 3 })
        relay.cancel()
        _ = try? await relay.value
        let again = try await store.claim(destination: "partner", limit: 10, now: Date(), leaseUntil: Date() + 60)
        #expect(again.count == 3)
        #expect(again.allSatisfy { $0.attempts == 0 })
        await receiver.stop()
        try await store.close()
    }

    @Test("a developer copy reaches a destination that takes developer copies only")
    func developerCopy() async throws {
        let store = MemoryPostbackStore()
        let receiver = Receiver()
        let port = try await receiver.start()
        let configuration = RelayConfiguration(destinations: [H.destination(port: port, filter: RelayFilter(copies: [.developer]))])
        let networkKeys = try await H.write(2, to: store, configuration: configuration, endpoint: "/postbacks")
        let copyKeys = try await H.write(2, to: store, configuration: configuration,
                                         endpoint: "/.well-known/skadnetwork/report-attribution/")
        #expect(networkKeys.isEmpty)
        let relay = H.start(H.service(configuration, outbox: store, clock: H.TestClock()))
        #expect(await H.eventually { receiver.accepted.count == 2 })
        relay.cancel()
        _ = try? await relay.value
        #expect(Set(receiver.accepted.keys) == Set(copyKeys))
        await receiver.stop()
    }
}

extension Date {
    static func + (date: Date, seconds: Int) -> Date { date.addingTimeInterval(TimeInterval(seconds)) }
}
