import Foundation
import GRDB
import SKANStore
import SKANStoreSQLite
import Testing

/// SQLite folds its rollups when the writer is idle (``SQLitePostbackStore/maintain()``) and in a batch's transaction
/// only past the backlog; every read counts exactly the stored postbacks whatever is folded.
@Suite("Rollup folds when idle and past the backlog")
struct IdleFoldTests {
    typealias Location = RollupTests.Location

    /// The lowest rollup watermark and the newest postback id of the file at `path`.
    static func lag(_ path: String) async throws -> (lowest: Int, last: Int, marks: [Int]) {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try await queue.read { db in
            let marks = try Int.fetchAll(db, sql: "SELECT folded_through FROM rollup_watermark ORDER BY rollup")
            return (marks.min() ?? -1, try Int.fetchOne(db, sql: "SELECT COALESCE(max(id), 0) FROM postbacks") ?? -1, marks)
        }
    }

    @Test("a busy writer below the backlog folds nothing; idle steps fold it all, one rollup and one step per lull")
    func idleSteps() async throws {
        let location = try Location.make(.sqlite)
        defer { location.remove() }
        guard case .sqlite(let path) = location else { return }
        let (first, second) = try RollupTests.campaigns()
        let folding = RollupFolding(step: 20, backlog: 100_000, idleMinimum: 10)
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal, folding: folding)
        var stored = 0
        for batch in (first + second).chunked(30) {
            stored += try await store.write(batch).filter { $0 == .stored }.count
        }
        #expect(stored > 150)
        var state = try await Self.lag(path)
        #expect(state.marks == [0, 0, 0] && state.last == stored, "no write folded below the backlog")
        #expect(try await RollupTests.expectRollupsEqualScan(location, "nothing folded") == stored)

        var steps = 0
        while try await Self.lag(path).lowest <= stored - folding.idleMinimum, steps < 100 {
            let before = try await Self.lag(path)
            #expect(try await store.maintain() == false, "one step per lull")
            steps += 1
            let after = try await Self.lag(path)
            // One rollup moves by at most one step.
            let moved = zip(before.marks, after.marks).filter { $0 != $1 }
            #expect(moved.count == 1 && moved.allSatisfy { $1 - $0 <= folding.step && $1 > $0 }, "\(before.marks) -> \(after.marks)")
        }
        state = try await Self.lag(path)
        #expect(steps >= 3 * ((stored - folding.idleMinimum) / folding.step), "\(steps) steps for \(stored) rows")
        #expect(state.last - state.lowest < folding.idleMinimum, "idle steps stop once fewer than the minimum wait")
        #expect(try await RollupTests.expectRollupsEqualScan(location, "folded while idle") == stored)
        // Fewer than the minimum wait: nothing to do, and nothing done.
        #expect(try await store.maintain() == false)
        #expect(try await Self.lag(path).marks == state.marks)
        try await store.close()
        #expect(try await Self.lag(path).marks == [stored, stored, stored], "a clean close folds the rest")
    }

    @Test("past the backlog a write folds one step; past twice the backlog, until under it, even for large batches")
    func backlogBound() async throws {
        let (first, second) = try RollupTests.campaigns()
        // Batches of 25 against steps of 10: one step per batch would fall behind; the bound holds at twice the backlog.
        // Batches of 4 against steps of 20: one step per batch keeps up, and a batch never folds more than one.
        for (step, backlog, batchSize) in [(10, 30, 25), (20, 30, 4)] {
            let location = try Location.make(.sqlite)
            defer { location.remove() }
            guard case .sqlite(let path) = location else { return }
            let folding = RollupFolding(step: step, backlog: backlog, idleMinimum: 1_000_000)
            let store = try await SQLitePostbackStore.open(path: path, durability: .normal, folding: folding)
            var stored = 0
            var folded = false
            var before = try await Self.lag(path)
            for batch in (first + second).chunked(batchSize) {
                stored += try await store.write(batch).filter { $0 == .stored }.count
                let state = try await Self.lag(path)
                #expect(state.last - state.lowest < 2 * backlog, "\(state.last - state.lowest) rows wait after a write")
                if batchSize < step {
                    let moved = zip(before.marks, state.marks).filter { $0 != $1 }.count
                    #expect(moved <= 1, "a batch below a step folded \(moved) rollups")
                    if before.last - before.lowest + batch.count < backlog { #expect(moved == 0) }
                }
                folded = folded || state.lowest > 0
                before = state
            }
            #expect(folded && stored > 3 * backlog)
            #expect(try await RollupTests.expectRollupsEqualScan(location, "folded past the backlog") == stored)
            try await store.close()
        }
    }
}
