import Foundation
import SKANCore
import SKANTestSupport
import SKANStore
import Testing

@Suite("SQLite postback store")
struct SQLitePostbackStoreTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_780_000_000.123)

    static func accepted(_ pair: (VerifiedPostback, [UInt8])) -> StoreEntry {
        .accepted(AcceptedPostback(verified: pair.0, rawBody: pair.1, receivedAt: receivedAt, endpoint: "/postbacks"))
    }

    static func rejected(_ reason: String) -> StoreEntry {
        .rejected(RejectedPostback(status: "malformed", field: nil, reason: reason, version: nil, transactionID: nil,
                                   adNetworkID: nil, rawBody: Array("{".utf8), receivedAt: receivedAt,
                                   endpoint: "/postbacks"))
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("skan-store-\(UUID().uuidString).sqlite").path
    }

    @Test("stores a postback once and calls its repeat a duplicate")
    func duplicates() async throws {
        let store = try SQLitePostbackStore(inMemoryWith: RejectionCap())
        let pair = TestPostbacks.verified()
        #expect(try await store.write([Self.accepted(pair)]) == [.stored])
        #expect(try await store.write([Self.accepted(pair), Self.accepted(pair)]) == [.duplicate, .duplicate])
        #expect(try await store.stats().postbacks == 1)
    }

    @Test("keys duplicates on network, transaction and sequence index")
    func dedupKey() async throws {
        let store = try SQLitePostbackStore(inMemoryWith: RejectionCap())
        let id = UUID().uuidString.lowercased()
        let entries = [
            Self.accepted(TestPostbacks.verified(transactionID: id)),
            Self.accepted(TestPostbacks.verified(transactionID: id, sequenceIndex: 1)),
            Self.accepted(TestPostbacks.verified(transactionID: id, sequenceIndex: 2)),
            Self.accepted(TestPostbacks.verified(transactionID: id, adNetworkID: "other.skadnetwork")),
            Self.accepted(TestPostbacks.verified(transactionID: id, sequenceIndex: 1)),
        ]
        #expect(try await store.write(entries) == [.stored, .stored, .stored, .stored, .duplicate])
        #expect(try await store.postbacks(transactionID: id).count == 4)
    }

    @Test("gives back every column of a stored postback")
    func roundTrip() async throws {
        let store = try SQLitePostbackStore(inMemoryWith: RejectionCap())
        let pair = TestPostbacks.verified()
        _ = try await store.write([Self.accepted(pair)])
        let stored = try #require(try await store.postbacks(transactionID: pair.0.postback.transactionID).first)
        #expect(stored.postback == pair.0.postback)
        #expect(stored.rawBody == pair.1)
        #expect(stored.keyName == "simulated-apple-p256")
        #expect(stored.layout == "4.0")
        #expect(stored.receivedAt == "2026-05-28T20:26:40.123Z")
    }

    @Test("caps refused postbacks and counts what the cap dropped")
    func rejectionCap() async throws {
        let store = try SQLitePostbackStore(inMemoryWith: RejectionCap(maximumRows: 3, maximumBodyBytes: 16))
        _ = try await store.write((0..<5).map { Self.rejected("bad \($0)") })
        _ = try await store.write([Self.rejected("bad 5")])
        let stats = try await store.stats()
        #expect(stats.rejected == 3)
        #expect(stats.rejectedDropped == 3)
        #expect(stats.rejectedByStatus == ["malformed": 3])
    }

    @Test("opens a file in WAL mode with the durability asked for, and keeps rows across reopening")
    func file() async throws {
        let path = Self.temporaryPath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let pair = TestPostbacks.verified()
        do {
            let store = try SQLitePostbackStore(path: path, durability: .normal)
            #expect(try store.journalMode() == "wal")
            #expect(try store.synchronousSetting() == 1)
            _ = try await store.write([Self.accepted(pair)])
            try await store.close()
        }
        let reopened = try SQLitePostbackStore(path: path)
        #expect(try reopened.synchronousSetting() == 2)
        #expect(try await reopened.write([Self.accepted(pair)]) == [.duplicate])
        try await reopened.close()
    }

    @Test("closes with nothing left beside the file, even after serving reads, and keeps the rows")
    func closesWithoutWAL() async throws {
        let path = Self.temporaryPath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let pair = TestPostbacks.verified()
        let store = try SQLitePostbackStore(path: path)
        _ = try await store.write([Self.accepted(pair), Self.rejected("truncated")])
        // Reads open the pool's read-only connections, which GRDB closes last.
        _ = try await store.stats()
        _ = try await store.postbacks(transactionID: pair.0.postback.transactionID)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        try await store.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))

        let reopened = try SQLitePostbackStore(path: path)
        let stats = try await reopened.stats()
        #expect(stats.postbacks == 1)
        #expect(stats.rejected == 1)
        try await reopened.close()
    }
}
