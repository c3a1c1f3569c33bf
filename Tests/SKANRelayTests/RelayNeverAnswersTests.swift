import Foundation
import SKANRelay
import SKANStore
import SKANTestSupport
import Testing

/// A destination that takes the connection and never answers: nothing is counted sent, every attempt is cut at the
/// timeout and made again with the same key, and once the next try would come past the destination's maximum age
/// the entry is a dead letter, kept.
@Suite("Relay: a destination that never answers")
struct RelayNeverAnswersTests {
    typealias H = RelayHarness

    @Test("each attempt is cut at the timeout and made again with one key; too old, it is a kept dead letter")
    func neverAnswers() async throws {
        let store = MemoryPostbackStore()
        let receiver = Receiver { _, _ in .stall }
        let port = try await receiver.start()
        var destination = H.destination(port: port, timeout: .milliseconds(200))
        destination.maximumAge = .seconds(3600)
        let configuration = RelayConfiguration(destinations: [destination])
        let clock = H.TestClock()
        let keys = try await H.write(2, to: store, configuration: configuration)
        let relay = H.start(H.service(configuration, outbox: store, clock: clock))
        #expect(await H.eventually { keys.allSatisfy { receiver.attempts(of: $0) >= 2 } })
        var depth = try #require(try await store.depths().first)
        #expect(depth.pending == 2)
        #expect(depth.dead == 0)
        #expect(depth.lastError != nil)
        // Every attempt of one postback carried its key, and only the two keys were ever sent.
        #expect(Set(receiver.attempts.map(\.key)) == Set(keys))
        #expect(receiver.accepted.isEmpty)

        // An hour later the next try would be past the maximum age: given up, kept as a dead letter.
        clock.advance(seconds: 3600)
        #expect(try await H.eventually { try await store.depths().first?.dead == 2 })
        relay.cancel()
        _ = try? await relay.value
        depth = try #require(try await store.depths().first)
        #expect(depth.pending == 0)
        #expect(depth.lastError?.hasPrefix("gave up after") == true, "\(depth.lastError ?? "nil")")
        let dead = try await MemoryPostbackReader(store).deadLetters(limit: 10)
        #expect(dead.count == 2)
        #expect(dead.allSatisfy { $0.attempts >= 2 })
        #expect(try await store.reviveDead(destination: nil, now: Date()) == 2)
        await receiver.stop()
    }
}
