import Foundation
import SKANCore
import SKANStore
@testable import SKANStoreSQLite
import SKANTestSupport
import Testing

/// Damage other than removal (issue 32): a truncated database and a removed WAL. No commit into files that will
/// not last is acknowledged, and what was acknowledged before a WAL removal survives a crash.
@Suite("Store damage", .temporaryFolder)
struct StoreDamageTests {
    static func folder() throws -> URL {
        try TemporaryFolder.current.url
    }

    /// Writes `count` postbacks in batches of 50 and returns their transaction ids.
    static func write(_ count: Int, to store: SQLitePostbackStore) async throws -> [String] {
        var ids: [String] = []
        for _ in 0..<(count / 50) {
            let batch = (0..<50).map { _ in TestPostbacks.verified() }
            _ = try await store.write(batch.map { SQLitePostbackStoreTests.accepted($0) })
            ids += batch.map { $0.0.fields.dedupID }
        }
        return ids
    }

    @Test("a database truncated to 0 bytes: the next commit fails, health fails at once, and both stay failed")
    func truncated() async throws {
        let folder = try Self.folder()
        let path = folder.appendingPathComponent("skan.sqlite").path
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        // Enough to pass SQLite's automatic checkpoint (1,000 pages), so the main file holds pages.
        _ = try await Self.write(3000, to: store)
        #expect(await store.health() == nil)
        #expect(truncate(path, 0) == 0)
        #expect(await store.health()?.code == .fileReplaced)
        for _ in 0..<3 {
            do {
                _ = try await store.write([SQLitePostbackStoreTests.accepted(TestPostbacks.verified())])
                Issue.record("a write into a truncated database was acknowledged")
            } catch {
                #expect(error.code == .fileReplaced && error.reason.contains("shrank"), "\(error.reason)")
            }
        }
        await #expect(throws: StoreError.self) { try await store.stats() }
        await #expect(throws: StoreError.self) { try await store.close() }
    }

    @Test("the WAL removed: the next commit fails, and every earlier commit is in the main file after a crash")
    func walRemoved() async throws {
        let folder = try Self.folder()
        let path = folder.appendingPathComponent("skan.sqlite").path
        let store = try await SQLitePostbackStore.open(path: path, durability: .full)
        let ids = try await Self.write(500, to: store)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        try FileManager.default.removeItem(atPath: path + "-wal")
        do {
            _ = try await store.write([SQLitePostbackStoreTests.accepted(TestPostbacks.verified())])
            Issue.record("a write after the WAL was removed was acknowledged")
        } catch {
            #expect(error.code == .fileReplaced && error.reason.contains("-wal"), "\(error.reason)")
        }
        #expect(await store.health()?.code == .fileReplaced)
        // What a crash would leave: the main file alone (the removed WAL dies with the process), copied while the
        // store still has it open.
        let copy = folder.appendingPathComponent("after-crash.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let reopened = try await SQLitePostbackStore.open(path: copy, durability: .normal)
        var missing = 0
        for id in ids where try await reopened.postbacks(transactionID: id).isEmpty { missing += 1 }
        try await reopened.close()
        #expect(missing == 0, "\(missing) of \(ids.count) acknowledged postbacks lost with the WAL")
        await #expect(throws: StoreError.self) { try await store.close() }
    }

    @Test("after a rename-over, /stats fails naming the file instead of counting the old one")
    func renameOver() async throws {
        let folder = try Self.folder()
        let path = folder.appendingPathComponent("skan.sqlite").path
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        _ = try await Self.write(50, to: store)
        #expect(try await store.stats().postbacks == 50)
        let other = folder.appendingPathComponent("other.sqlite").path
        try await SQLitePostbackStore.open(path: other, durability: .normal).close()
        #expect(rename(other, path) == 0)
        do {
            let stats = try await store.stats()
            Issue.record("stats counted the old file: \(stats.postbacks)")
        } catch {
            #expect(error.code == .fileReplaced && error.reason.contains(path))
        }
        await #expect(throws: StoreError.self) { try await store.close() }
    }
}
