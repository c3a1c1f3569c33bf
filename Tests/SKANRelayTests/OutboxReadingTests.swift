import Foundation
import SKANStore
import SKANTestSupport
import Testing

/// What a read-only reader (the dashboard's) sees of the outbox is what the store's own ``Outbox/depths()`` says, on
/// every engine, and dead letters come newest first without their bodies.
@Suite("Outbox through a reader", .temporaryFolder)
struct OutboxReadingTests {
    static let t0 = Date(timeIntervalSince1970: 1_780_000_000)

    @Test("depths as the store reads them; dead letters newest first, with attempts, error and time",
          arguments: RelayReplayPagingTests.engines)
    func reads(_ engine: String) async throws {
        let (store, openReader) = try await RelayReplayPagingTests.open(engine)
        let reader = try await openReader()
        try await StoreHost.running([store, reader]) {
            let items = (0 ..< 5).map { OutboxItem(destination: $0 < 4 ? "a" : "b", idempotencyKey: "k\($0)", body: Array("body \($0)".utf8)) }
            try await store.enqueue(items, now: Self.t0)
            let claimed = try await store.claim(destination: "a", limit: 4, now: Self.t0, leaseUntil: Self.t0 + 60)
            try #require(claimed.count == 4)
            try await store.settle([.dead(id: claimed[0].id, error: "HTTP 404"), .retry(id: claimed[1].id, at: Self.t0, error: "HTTP 503"),
                                    .dead(id: claimed[2].id, error: "<b>gone</b>"), .sent(id: claimed[3].id)])
            let depths = try await reader.outboxDepths()
            #expect(depths == (try await store.depths()))
            #expect(depths.map(\.destination) == ["a", "b"])
            #expect(depths.first?.pending == 1)
            #expect(depths.first?.dead == 2)
            let dead = try await reader.deadLetters(limit: 10)
            #expect(dead == [
                DeadLetter(id: claimed[2].id, destination: "a", attempts: 1, lastError: "<b>gone</b>", createdAt: Self.t0),
                DeadLetter(id: claimed[0].id, destination: "a", attempts: 1, lastError: "HTTP 404", createdAt: Self.t0),
            ])
            #expect(try await reader.deadLetters(limit: 1).map(\.id) == [claimed[2].id])
            await reader.close()
            try await store.close()
        }
    }
}
