import Foundation
import SKANCore
import SKANTestSupport
import SKANStore
import SKANStoreSQLite
import Testing

@Suite("SQLite postback store", .temporaryFolder)
struct SQLitePostbackStoreTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_780_000_000.123)

    static func accepted(_ pair: (VerifiedAttribution, [UInt8])) -> StoreEntry {
        .accepted(AcceptedPostback(attribution: pair.0, rawBody: pair.1, receivedAt: receivedAt, endpoint: "/postbacks"))
    }

    static func rejected(_ reason: String) -> StoreEntry {
        .rejected(RejectedPostback(status: "malformed", field: nil, reason: reason, version: nil, transactionID: nil,
                                   adNetworkID: nil, rawBody: Array("{".utf8), receivedAt: receivedAt,
                                   endpoint: "/postbacks"))
    }

    /// A new database path in the running test's temporary folder (the suite needs the `.temporaryFolder` trait).
    static func temporaryPath() throws -> String {
        try TemporaryFolder.current.path("store-\(UUID().uuidString).sqlite")
    }

    @Test("opens a file in WAL mode with the durability asked for, and keeps rows across reopening")
    func file() async throws {
        let path = try Self.temporaryPath()
        let pair = TestPostbacks.verified()
        do {
            let store = try await SQLitePostbackStore.open(path: path, durability: .normal)
            #expect(try store.journalMode() == "wal")
            #expect(try store.synchronousSetting() == 1)
            _ = try await store.write([Self.accepted(pair)])
            try await store.close()
        }
        let reopened = try await SQLitePostbackStore.open(path: path)
        #expect(try reopened.synchronousSetting() == 2)
        #expect(try await reopened.write([Self.accepted(pair)]) == [.duplicate])
        try await reopened.close()
    }

    @Test("the relay's claims and settlements commit unsynced but leave the writer syncing postback commits")
    func outboxLeavesSyncOn() async throws {
        let path = try Self.temporaryPath()
        let store = try await SQLitePostbackStore.open(path: path, durability: .full)
        let now = Date()
        try await store.enqueue([OutboxItem(destination: "a", idempotencyKey: "k", body: [1])], now: now)
        let claimed = try await store.claim(destination: "a", limit: 8, now: now, leaseUntil: now.addingTimeInterval(60))
        #expect(claimed.count == 1)
        #expect(try store.synchronousSetting() == 2)
        try await store.settle(claimed.map { .sent(id: $0.id) })
        #expect(try store.synchronousSetting() == 2)
        #expect(try await store.depths().first?.pending ?? 0 == 0)
        try await store.close()
    }

    @Test("closes with nothing left beside the file, even after serving reads, and keeps the rows")
    func closesWithoutWAL() async throws {
        let path = try Self.temporaryPath()
        let pair = TestPostbacks.verified()
        let store = try await SQLitePostbackStore.open(path: path)
        _ = try await store.write([Self.accepted(pair), Self.rejected("truncated")])
        // Reads open the pool's read-only connections, which GRDB closes last.
        _ = try await store.stats()
        _ = try await store.postbacks(transactionID: pair.0.fields.dedupID)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        try await store.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))

        let reopened = try await SQLitePostbackStore.open(path: path)
        let stats = try await reopened.stats()
        #expect(stats.postbacks == 1)
        #expect(stats.rejected == 1)
        try await reopened.close()
    }
}
