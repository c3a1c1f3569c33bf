import Foundation
import GRDB
import SKANStore
@testable import SKANStoreSQLite
import SKANTestSupport
import Testing

/// SQLite folds its rollups beside the writer, in a file of their own (`SQLiteRollupFolder`): a fold never holds up
/// a write, every read counts exactly the stored postbacks whatever is folded, and a rollups file that is lost is made
/// again from `postbacks`.
@Suite("Rollup folds beside the writer", .temporaryFolder)
struct RollupFolderTests {
    typealias Location = RollupTests.Location

    /// Each rollup's watermark (by name) and the newest postback id of the database at `path`.
    static func lag(_ path: String) async throws -> (lowest: Int, last: Int, marks: [Int]) {
        let rollups = try DatabaseQueue(path: SQLitePostbackStore.rollupsPath(for: path))
        defer { try? rollups.close() }
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        let marks = try await rollups.read { db in
            try Int.fetchAll(db, sql: "SELECT folded_through FROM rollup_watermark ORDER BY rollup")
        }
        let last = try await database.read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(max(id), 0) FROM postbacks") ?? -1 }
        return (marks.min() ?? -1, last, marks)
    }

    @Test("the folder keeps every rollup within a step of the writer; a clean close folds the rest")
    func keepsUp() async throws {
        let location = try Location.make(.sqlite)
        guard case .sqlite(let path) = location else { return }
        let (first, second) = try RollupTests.campaigns()
        let folding = RollupFolding(step: 20, idleMinimum: 10)
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal, folding: folding)
        var stored = 0
        var sawUnfolded = false
        for batch in (first + second).chunked(30) {
            stored += try await store.write(batch).filter { $0 == .stored }.count
            await store.waitForFolds()
            let state = try await Self.lag(path)
            #expect(state.last == stored)
            #expect(state.last - state.lowest < folding.idleMinimum, "\(state.last - state.lowest) rows wait after a write")
            sawUnfolded = sawUnfolded || state.lowest < state.last
        }
        #expect(stored > 150 && sawUnfolded)
        #expect(try await RollupTests.expectRollupsEqualScan(location, "folded beside the writer") == stored)
        try await store.close()
        #expect(try await Self.lag(path).marks == [stored, stored, stored], "a clean close folds the rest")
    }

    @Test("a write does not wait for a fold: with the rollups file locked, postbacks are stored and counted",
          .timeLimit(.minutes(2)))
    func writesDoNotWait() async throws {
        let location = try Location.make(.sqlite)
        guard case .sqlite(let path) = location else { return }
        let (first, second) = try RollupTests.campaigns()
        // The folder waits up to 60 s for the lock: a write that waited for it would take that long.
        let store = try SQLitePostbackStore(path: path, durability: .normal, rejectionCap: RejectionCap(),
                                            folding: RollupFolding(step: 50, idleMinimum: 5),
                                            checkpointLimits: SQLiteCheckpointer.Limits(), rollupsBusyTimeout: 60)
        try await store.migrate()
        // Another connection holds the rollups file's write lock, as a long fold would.
        var unsafe = Configuration()
        unsafe.allowsUnsafeTransactions = true
        let blocker = try DatabaseQueue(path: SQLitePostbackStore.rollupsPath(for: path), configuration: unsafe)
        try await blocker.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        var stored = 0
        let started = ContinuousClock.now
        for batch in (first + second).chunked(40) {
            stored += try await store.write(batch).filter { $0 == .stored }.count
        }
        let elapsed = ContinuousClock.now - started
        // The writes take milliseconds alone; 30 s leaves room for a loaded machine and stays far from the 60 s a
        // write would wait behind the fold.
        #expect(elapsed < .seconds(30), "\(elapsed) to store \(stored) postbacks beside a locked rollups file")
        #expect(try await Self.lag(path).marks == [0, 0, 0], "nothing folded while the lock was held")
        #expect(try await RollupTests.expectRollupsEqualScan(location, "with the rollups file locked") == stored)
        try await blocker.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
        try blocker.close()
        try await store.close()
        #expect(try await Self.lag(path).marks == [stored, stored, stored])
    }

    @Test("a rollups file that is removed is made again: reads count every row, the next store folds them")
    func removedFile() async throws {
        let location = try Location.make(.sqlite)
        guard case .sqlite(let path) = location else { return }
        let (first, _) = try RollupTests.campaigns()
        var store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        let stored = try await store.write(first).filter { $0 == .stored }.count
        try await store.close()
        try FileManager.default.removeItem(atPath: SQLitePostbackStore.rollupsPath(for: path))
        #expect(!FileManager.default.fileExists(atPath: SQLitePostbackStore.rollupsPath(for: path) + "-wal"), "a clean close leaves no WAL")
        #expect(try await RollupTests.expectRollupsEqualScan(location, "rollups file removed") == stored)
        #expect(try await Self.lag(path).marks == [0, 0, 0], "made again, empty")
        // A store that opens folds what waits (a step's worth or more) without waiting for a write.
        store = try await SQLitePostbackStore.open(path: path, durability: .normal, folding: RollupFolding(step: 64, idleMinimum: 64))
        await store.waitForFolds()
        let state = try await Self.lag(path)
        #expect(state.last - state.lowest < 64 && state.lowest > 0, "\(state)")
        try await store.close()
        #expect(try await RollupTests.expectRollupsEqualScan(location, "folded again") == stored)
    }

    @Test("a rollups file left beside another database (made again, or copied over) is emptied and refolded")
    func staleFile() async throws {
        let location = try Location.make(.sqlite), other = try Location.make(.sqlite)
        guard case .sqlite(let path) = location, case .sqlite(let otherPath) = other else { return }
        let (first, second) = try RollupTests.campaigns()
        var store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        let many = try await store.write(first + second).filter { $0 == .stored }.count
        try await store.close()
        // The database goes and is made again, the rollups file stays: its watermarks are past every new row.
        try FileManager.default.removeItem(atPath: path)
        store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        let few = try await store.write(Array(first.prefix(first.count / 2)) + second).filter { $0 == .stored }.count
        #expect(few > 0 && few < many, "\(few) against \(many)")
        #expect(try await RollupTests.expectRollupsEqualScan(location, "made again beside old rollups") == few)
        try await store.close()
        #expect(try await RollupTests.expectRollupsEqualScan(location, "made again, closed") == few)
        // Another database copied over this one while no store is open: a reader finds out alone.
        store = try await SQLitePostbackStore.open(path: otherPath, durability: .normal)
        let copied = try await store.write(first + second).filter { $0 == .stored }.count
        try await store.close()
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: otherPath, toPath: path)
        #expect(try await RollupTests.expectRollupsEqualScan(location, "copied over") == copied)
    }
}
