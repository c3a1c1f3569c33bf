import Foundation
import SKANCore
import SKANRelay
import SKANStore
import SKANStorePostgres
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// A replay reads its days a step at a time (`ExportPage`), so a day of millions of postbacks is never held whole:
/// over more postbacks than one step, each is queued exactly once, with the key it got on arrival.
@Suite("Relay replay in steps", .temporaryFolder)
struct RelayReplayPagingTests {
    static let engines = ["sqlite", "memory"] + (PostgresTestServer.isAvailable ? ["postgres"] : [])
    static let day1 = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28
    static let day2 = day1.addingTimeInterval(86_400)

    /// A store and a reader of it on `engine`.
    static func open(_ engine: String) async throws -> (any PostbackStore & Outbox, () async throws -> any PostbackReader) {
        switch engine {
        case "postgres":
            let configuration = try PostgresStoreConfiguration(url: try #require(PostgresTestServer.shared).makeDatabase())
            let store = try await PostgresPostbackStore.open(configuration)
            return (store, { try await PostgresPostbackReader.open(configuration) })
        case "sqlite":
            let path = try TemporaryFolder.current.path("replay-\(UUID().uuidString).sqlite")
            return (try await SQLitePostbackStore.open(path: path, durability: .normal),
                    { try await SQLiteEngine().openReader(path) })
        default:
            let store = MemoryPostbackStore()
            return (store, { MemoryPostbackReader(store) })
        }
    }

    @Test("over more postbacks than one step, each is queued once, in arrival order, with its first key; other days skipped",
          arguments: engines)
    func steps(_ engine: String) async throws {
        let (store, openReader) = try await Self.open(engine)
        try await StoreHost.running([store]) {
            let partner = RelayDestination(name: "partner", url: URL(string: "http://127.0.0.1:1/")!)
            let router = RelayRouter(configuration: RelayConfiguration(destinations: [partner]))
            // 23 postbacks of the day asked, with 12 of the next day between them: ids interleave, so a step that stopped
            // at the wrong id, or counted the skipped rows, would lose or repeat one.
            var firstKeys: [String] = []
            var entries: [StoreEntry] = []
            for index in 0 ..< 35 {
                let (verified, body) = TestPostbacks.verified()
                let asked = index % 3 != 1
                var accepted = AcceptedPostback(attribution: verified, rawBody: body,
                                                receivedAt: (asked ? Self.day1 : Self.day2).addingTimeInterval(Double(index)),
                                                endpoint: "/postbacks")
                accepted.outbox = router.items(for: accepted, arrival: Arrival())
                if asked { firstKeys += accepted.outbox.map(\.idempotencyKey) }
                entries.append(.accepted(accepted))
            }
            #expect(try await store.write(entries).allSatisfy { $0 == .stored })
            #expect(firstKeys.count == 23)

            let reader = try await openReader()
            var steps: [[OutboxItem]] = []
            let queued = try await StoreHost.running([reader]) {
                let queued = try await RelayReplay.replay(from: reader, to: partner, days: try .init(since: "2026-05-28", until: "2026-05-28"),
                                                          batch: 4) { items in
                    steps.append(items)
                    try await store.enqueue(items, now: Date())
                }
                await reader.close()
                return queued
            }
            #expect(queued == 23)
            #expect(steps.flatMap { $0 }.map(\.idempotencyKey) == firstKeys)
            // No step holds more than a step's postbacks.
            #expect(steps.allSatisfy { $0.count <= 4 })
            #expect(steps.count >= 6)
            // The outbox holds the arrivals' entries and the replay's: the replay's keys repeat each first key once.
            let depth = try #require(try await store.depths().first { $0.destination == "partner" })
            #expect(depth.pending == 35 + 23)
            try await store.close()
        }
    }

    @Test("a step past the last postback ends the replay; days with nothing queue nothing", arguments: engines)
    func empty(_ engine: String) async throws {
        let (store, openReader) = try await Self.open(engine)
        try await StoreHost.running([store]) {
            let partner = RelayDestination(name: "partner", url: URL(string: "http://127.0.0.1:1/")!)
            let reader = try await openReader()
            var calls = 0
            let queued = try await StoreHost.running([reader]) {
                let queued = try await RelayReplay.replay(from: reader, to: partner, days: try .init(since: "2026-05-28", until: nil),
                                                          batch: 4) { _ in calls += 1 }
                await reader.close()
                return queued
            }
            #expect(queued == 0)
            #expect(calls == 0)
            try await store.close()
        }
    }
}
