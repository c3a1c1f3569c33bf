import Foundation
import GRDB
import SKANCore
import SKANTestSupport
import SKANStore
import SKANStoreSQLite
import Testing

/// `stats()` reads counters the writer keeps, not `count(*)`: they must match the rows, across restarts and
/// the rejection cap, and an existing database must get them counted once when it upgrades.
@Suite("Store statistics", .temporaryFolder)
struct StatCounterTests {
    typealias T = SQLitePostbackStoreTests

    static func rejected(_ status: String) -> StoreEntry {
        .rejected(RejectedPostback(status: status, field: nil, reason: "r", version: nil, transactionID: nil,
                                   adNetworkID: nil, rawBody: [], receivedAt: T.receivedAt, endpoint: "/postbacks"))
    }

    /// What `count(*)` says, straight from the file.
    static func counted(_ path: String) throws -> (postbacks: Int, rejected: [String: Int]) {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let postbacks = try Int.fetchOne(db, sql: "SELECT count(*) FROM postbacks") ?? -1
            let rows = try Row.fetchAll(db, sql: "SELECT status, count(*) FROM rejected_postbacks GROUP BY status")
            return (postbacks, Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as String, $0[1] as Int) }))
        }
    }

    @Test("counts stored postbacks, not duplicates, and keeps the counts across reopening")
    func survivesRestart() async throws {
        let path = try T.temporaryPath()
        let pair = TestPostbacks.verified()
        let store = try await SQLitePostbackStore.open(path: path)
        _ = try await store.write([T.accepted(pair), T.accepted(TestPostbacks.verified()), T.accepted(pair),
                                   Self.rejected("malformed"), Self.rejected("invalid-signature")])
        _ = try await store.write([T.accepted(pair), Self.rejected("malformed")])
        try await store.close()

        let reopened = try await SQLitePostbackStore.open(path: path)
        let stats = try await reopened.stats()
        try await reopened.close()
        #expect(stats.postbacks == 2)
        #expect(stats.postbacksByVersion == ["4.0": 2])
        #expect(stats.rejectedByStatus == ["malformed": 2, "invalid-signature": 1])
        let counted = try Self.counted(path)
        #expect(counted.postbacks == stats.postbacks)
        #expect(counted.rejected == stats.rejectedByStatus)
    }

    @Test("counts the rows of a database made before the counters existed, once, when it upgrades")
    func upgrade() async throws {
        let path = try T.temporaryPath()
        let store = try await SQLitePostbackStore.open(path: path)
        _ = try await store.write([T.accepted(TestPostbacks.verified()), T.accepted(TestPostbacks.verified()),
                                   Self.rejected("malformed")])
        try await store.close()
        // Turn the file back into one that migration 0002 left: no counters beyond rejected_dropped.
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "DELETE FROM counters WHERE name <> 'rejected_dropped'")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = '0003-stat-counters'")
        }
        try queue.close()

        let upgraded = try await SQLitePostbackStore.open(path: path)
        let stats = try await upgraded.stats()
        try await upgraded.close()
        #expect(stats.postbacksByVersion == ["4.0": 2])
        #expect(stats.rejectedByStatus == ["malformed": 1])
    }

    @Test("counter names keep the names stored by earlier releases and read back as framework and version")
    func counterNames() {
        let cases: [(PostbackCounterKey, String)] = [
            (PostbackCounterKey(framework: .skadnetwork, version: "4.0"), "postbacks:4.0"),
            (PostbackCounterKey(framework: .skadnetwork, version: "2.2"), "postbacks:2.2"),
            (PostbackCounterKey(framework: .adAttributionKit, version: nil), "postbacks:adattributionkit"),
            (PostbackCounterKey(framework: .adAttributionKit, version: "2.0"), "postbacks:adattributionkit:2.0"),
        ]
        for (key, name) in cases {
            #expect(key.counterName == name)
            #expect(PostbackCounterKey(counterName: name) == key)
        }
        #expect(PostbackCounterKey(counterName: "rejected:malformed") == nil)
        let stats = StoreStats(counters: [("postbacks:4.0", 2), ("postbacks:adattributionkit", 3), ("rejected:malformed", 1)])
        #expect(stats.postbacksByVersion == ["4.0": 2])
        #expect(stats.postbacksByFramework == ["skadnetwork": 2, "adattributionkit": 3])
        #expect(stats.json.contains(#""postbacks-by-version":{"4.0":2}"#))
    }
}
