import Foundation
import SKANCore
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// SQLite keeps writing to an open file after it is unlinked; the store must notice instead of acknowledging.
@Suite("The store's file under its feet", .temporaryFolder)
struct StoreFileTests {
    enum Change: String, CaseIterable {
        case folderRemoved, fileRemoved, fileReplaced
    }

    @Test("once the path no longer leads to the opened file, writes fail, health says so and close throws",
          arguments: Change.allCases)
    func changed(change: Change) async throws {
        let folder = try TemporaryFolder.current.url
        let path = folder.appendingPathComponent("skan.sqlite").path
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        _ = try await store.write([SQLitePostbackStoreTests.accepted(TestPostbacks.verified())])
        #expect(await store.health() == nil)

        switch change {
        case .folderRemoved: try FileManager.default.removeItem(at: folder)
        case .fileRemoved: try FileManager.default.removeItem(atPath: path)
        case .fileReplaced:
            let other = folder.appendingPathComponent("other.sqlite").path
            try await SQLitePostbackStore.open(path: other, durability: .normal).close()
            #expect(rename(other, path) == 0)
        }
        await #expect(throws: StoreError.self) {
            _ = try await store.write([SQLitePostbackStoreTests.accepted(TestPostbacks.verified())])
        }
        do {
            _ = try await store.write([SQLitePostbackStoreTests.accepted(TestPostbacks.verified())])
        } catch {
            #expect(error.code == .fileReplaced)
            #expect(error.reason.contains(path))
        }
        #expect(await store.health()?.code == .fileReplaced)
        await #expect(throws: StoreError.self) { try await store.close() }
    }
}
