import Foundation
import SKANCore
import SKANRelay
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// A replay queues stored postbacks for one destination with the keys they got on arrival, within the days asked,
/// and only those the destination's filter takes.
@Suite("Relay replay", .temporaryFolder)
struct RelayReplayTests {
    static let day1 = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28
    static let day2 = day1.addingTimeInterval(86_400)
    static let day3 = day2.addingTimeInterval(86_400)

    /// Stores a postback received at `at` on `endpoint`, queued as `router` routes it; returns its queued items.
    static func store(at: Date, endpoint: String = "/postbacks", in store: any PostbackStore,
                      router: RelayRouter) async throws -> [OutboxItem] {
        let (verified, body) = TestPostbacks.verified()
        var accepted = AcceptedPostback(attribution: verified, rawBody: body, receivedAt: at, endpoint: endpoint)
        accepted.outbox = router.items(for: accepted, arrival: Arrival(clientAddress: "192.0.2.1", userAgent: "ua"))
        #expect(try await store.write([.accepted(accepted)]) == [.stored])
        return accepted.outbox
    }

    /// Every entry a replay queues, in order, read `batch` postbacks at a time.
    static func items(from reader: any PostbackReader, to destination: RelayDestination, days: RelayReplay.Days,
                      batch: Int = 2) async throws -> [OutboxItem] {
        var all: [OutboxItem] = []
        let count = try await RelayReplay.replay(from: reader, to: destination, days: days, batch: batch) { all += $0 }
        #expect(count == all.count)
        return all
    }

    @Test("queues the postbacks of the days asked with the keys they arrived with, as the filter takes them",
          arguments: ["SQLite", "memory"])
    func replay(_ engine: String) async throws {
        let path = try TemporaryFolder.current.path("replay-\(UUID().uuidString).sqlite")
        let memory = MemoryEngine()
        let (store, reader): (any PostbackStore, () async throws -> any PostbackReader) = engine == "SQLite"
            ? (try await SQLitePostbackStore.open(path: path, durability: .normal), { try await SQLiteEngine().openReader(path) })
            : (try memory.openStore("memory:replay", options: StoreOptions()), { try await memory.openReader("memory:replay") })
        let old = RelayDestination(name: "old", url: URL(string: "http://127.0.0.1:1/")!, body: .json(adding: [.receivedAt, .ipAddress]))
        let router = RelayRouter(configuration: RelayConfiguration(destinations: [old]))
        let first = try await Self.store(at: Self.day1, in: store, router: router)
        let second = try await Self.store(at: Self.day2, in: store, router: router)
        let copy = try await Self.store(at: Self.day2, endpoint: "/.well-known/skadnetwork/report-attribution/", in: store, router: router)
        _ = try await Self.store(at: Self.day3, in: store, router: router)

        // The same destination again: the same keys and bodies, but no address (never stored).
        let opened = try await reader()
        let again = try await Self.items(from: opened, to: old, days: try .init(since: "2026-05-28", until: "2026-05-29"))
        #expect(again.map(\.idempotencyKey) == (first + second + copy).map(\.idempotencyKey))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(again[0].body)) as? [String: Any])
        let arrived = try #require(try JSONSerialization.jsonObject(with: Data(first[0].body)) as? [String: Any])
        #expect(object["received-at"] as? String == arrived["received-at"] as? String)
        #expect(object["ip-address"] is NSNull)

        // A new destination that takes developer copies only, from the second day on.
        let copies = RelayDestination(name: "new", url: URL(string: "http://127.0.0.1:1/")!, filter: RelayFilter(copies: [.developer]))
        let replayed = try await Self.items(from: opened, to: copies, days: try .init(since: "2026-05-29", until: nil))
        await opened.close()
        let copyObject = try #require(try JSONSerialization.jsonObject(with: Data(copy[0].body)) as? [String: Any])
        let copyID = try #require(copyObject["transaction-id"] as? String)
        let storedCopy = try #require(try await store.postbacks(transactionID: copyID).first)
        let copyKey = RelayRouter.idempotencyKey(destination: "new", storedCopy.dedupKey)
        #expect(replayed.map(\.idempotencyKey) == [copyKey])
        #expect(replayed.map(\.destination) == ["new"])
        try await store.close()
    }

    @Test("refuses days that are not days, or out of order", arguments: [
        ("2026-5-28", nil, "--since must be a day YYYY-MM-DD (UTC), got \"2026-5-28\""),
        ("2026-05-28", "yesterday", "--until must be a day YYYY-MM-DD (UTC), got \"yesterday\""),
        ("2026-05-28", "2026-05-27", "--until 2026-05-27 is before --since 2026-05-28"),
    ] as [(String, String?, String)])
    func days(_ since: String, _ until: String?, _ reason: String) {
        #expect {
            _ = try RelayReplay.Days(since: since, until: until)
        } throws: { error in
            (error as? RelayError)?.reason == reason
        }
    }
}
