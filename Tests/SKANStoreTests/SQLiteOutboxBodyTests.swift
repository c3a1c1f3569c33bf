import Foundation
import GRDB
import SKANCore
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// On SQLite an outbox entry that sends its postback as received names the stored postback rather than copying its
/// bytes; the claim reads them from the postback, and retention hands them to the entry before it deletes the
/// postback or empties its body.
@Suite("SQLite outbox bodies", .temporaryFolder)
struct SQLiteOutboxBodyTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_780_000_000)

    /// A stored postback with one entry as received (destination `a`) and one with another body (`b`).
    static func entry(_ pair: (VerifiedAttribution, [UInt8])) -> StoreEntry {
        var accepted = AcceptedPostback(attribution: pair.0, rawBody: pair.1, receivedAt: receivedAt, endpoint: "/postbacks")
        accepted.outbox = [OutboxItem(destination: "a", idempotencyKey: "a-\(pair.0.fields.dedupID)", body: pair.1),
                           OutboxItem(destination: "b", idempotencyKey: "b-\(pair.0.fields.dedupID)", body: Array("{\"x\":1}".utf8))]
        return .accepted(accepted)
    }

    static func withStore(_ body: (SQLitePostbackStore, String) async throws -> Void) async throws {
        let path = try TemporaryFolder.current.path("store.sqlite")
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        try await body(store, path)
        try await store.close()
    }

    /// `(postback_id, length(body))` of each entry of `destination`, read apart from the store.
    static func rows(_ path: String, _ destination: String) throws -> [(Int64?, Int)] {
        let queue = try DatabaseQueue(path: path)
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT postback_id, length(body) FROM relay_outbox WHERE destination = ? ORDER BY id",
                             arguments: [destination]).map { ($0[0], $0[1]) }
        }
    }

    @Test("an entry as received names its postback, one with another body keeps a copy; claims send the right bytes")
    func namesThePostback() async throws {
        let pair = TestPostbacks.verified()
        try await Self.withStore { store, path in
            #expect(try await store.write([Self.entry(pair)]) == [.stored])
            let named = try Self.rows(path, "a")
            #expect(named.count == 1 && named[0].0 != nil && named[0].1 == 0)
            let copied = try Self.rows(path, "b")
            #expect(copied.count == 1 && copied[0].0 == nil && copied[0].1 == 7)
            let now = Date()
            let a = try await store.claim(destination: "a", limit: 8, now: now, leaseUntil: now.addingTimeInterval(60))
            #expect(a.map(\.item.body) == [pair.1])
            let b = try await store.claim(destination: "b", limit: 8, now: now, leaseUntil: now.addingTimeInterval(60))
            #expect(b.map(\.item.body) == [Array("{\"x\":1}".utf8)])
        }
    }

    @Test("retention that empties or deletes a postback first gives its body to the entries still naming it")
    func retentionKeepsBodies() async throws {
        let first = TestPostbacks.verified(), second = TestPostbacks.verified()
        try await Self.withStore { store, path in
            #expect(try await store.write([Self.entry(first), Self.entry(second)]) == [.stored, .stored])
            // Both bodies emptied, then the older postback deleted (the newest row always stays).
            let emptied = try await store.dropBodies(receivedBefore: Date(), after: 0, limit: 10)
            #expect(emptied.emptied == 2)
            #expect(try await store.deletePostbacks(receivedBefore: Date(), limit: 10) == 1)
            #expect(try Self.rows(path, "a").map(\.0) == [nil, nil])
            let now = Date()
            let claimed = try await store.claim(destination: "a", limit: 8, now: now, leaseUntil: now.addingTimeInterval(60))
            #expect(claimed.map(\.item.body) == [first.1, second.1])
        }
    }

    @Test("an entry whose postback was deleted by hand is a dead letter that says so, and the claim goes on")
    func orphan() async throws {
        let first = TestPostbacks.verified(), second = TestPostbacks.verified()
        try await Self.withStore { store, path in
            #expect(try await store.write([Self.entry(first), Self.entry(second)]) == [.stored, .stored])
            try await DatabaseQueue(path: path).write { db in try db.execute(sql: "DELETE FROM postbacks WHERE id = 1") }
            let now = Date()
            let claimed = try await store.claim(destination: "a", limit: 8, now: now, leaseUntil: now.addingTimeInterval(60))
            #expect(claimed.map(\.item.body) == [second.1])
            let depth = try #require(try await store.depths().first { $0.destination == "a" })
            #expect(depth.dead == 1)
            #expect(depth.lastError == "its postback is no longer stored")
        }
    }
}
