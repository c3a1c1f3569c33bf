import Foundation
import SKANStore
@testable import SKANStoreSQLite
import SKANTestSupport
import Testing

/// Checkpoints leave the writer's commits: a checkpointer copies the WAL on its own connection when a commit passes
/// the request size, and the writer checkpoints itself only past a larger bound. Both must keep the WAL from growing.
@Suite("WAL checkpoints off the writer", .temporaryFolder)
struct SQLiteCheckpointerTests {
    /// A migrated store in a folder of its own with the given durability and checkpoint limits.
    private func store(_ durability: SQLiteDurability, _ limits: SQLiteCheckpointer.Limits) async throws -> SQLitePostbackStore {
        let folder = try TemporaryFolder.current.makeFolder("run-\(UUID().uuidString)")
        let store = try SQLitePostbackStore(path: folder.appendingPathComponent("skan.sqlite").path, durability: durability,
                                            rejectionCap: RejectionCap(), folding: .default, checkpointLimits: limits)
        try await store.migrate()
        return store
    }

    /// Writes `count` postbacks one transaction at a time (each commit adds a few frames: the table's page, the
    /// dedup index's, the counters'), waiting for the checkpointer between them; the largest frame count seen after
    /// the first ten (the migrations' own frames are in the WAL until the first checkpoint).
    private func largestWAL(request: Int, writer: Int, count: Int = 40) async throws -> (frames: Int, background: Int, rows: Int) {
        let store = try await store(.full, .init(request: request, writer: writer))
        var largest = 0
        for index in 0..<count {
            _ = try await store.write([SQLitePostbackStoreTests.accepted(TestPostbacks.verified())])
            if index >= 10 { largest = max(largest, store.walFrames) }
            store.waitForCheckpoints()
        }
        let background = store.backgroundCheckpoints
        let rows = try await store.stats().postbacks
        try await store.close()
        return (largest, background, rows)
    }

    @Test("with no checkpoint at all the WAL grows with every commit: the bound the other tests hold is real")
    func control() async throws {
        let run = try await largestWAL(request: .max, writer: .max)
        #expect(run.frames > 100)
        #expect(run.background == 0)
        #expect(run.rows == 40)
    }

    @Test("the checkpointer copies the WAL so that the writer's next transaction starts it again")
    func background() async throws {
        let run = try await largestWAL(request: 8, writer: .max)
        #expect(run.background >= 5)
        #expect(run.frames < 30)
        #expect(run.rows == 40)
    }

    @Test("past its own bound the writer checkpoints itself, with no checkpointer asked")
    func writerBound() async throws {
        let run = try await largestWAL(request: .max, writer: 20)
        #expect(run.background == 0)
        #expect(run.frames < 40)
        #expect(run.rows == 40)
    }

    @Test("a writer past its bound while the checkpointer copies never fails the postbacks it committed")
    func writerBesideCheckpointer() async throws {
        // Both bounds tiny and no wait between writes: the writer's checkpoint meets the checkpointer's again and
        // again (before the fix, SQLITE_BUSY failed a committed batch).
        let store = try await store(.normal, .init(request: 1, writer: 2))
        var failures = 0
        for _ in 0..<300 {
            do {
                _ = try await store.write((0..<4).map { _ in SQLitePostbackStoreTests.accepted(TestPostbacks.verified()) })
            } catch {
                failures += 1
            }
        }
        #expect(failures == 0)
        #expect(try await store.stats().postbacks == 1200)
        try await store.close()
    }

    @Test("a short remainder is the writer's to copy, anything else the checkpointer's again")
    func remainderRule() {
        #expect(SQLiteCheckpointer.after(left: 1, tail: 256) == .writer)
        #expect(SQLiteCheckpointer.after(left: 256, tail: 256) == .writer)
        #expect(SQLiteCheckpointer.after(left: 257, tail: 256) == .again)
        // Nothing left (the WAL started again meanwhile, or was copied whole), a failed checkpoint, no tail rule.
        #expect(SQLiteCheckpointer.after(left: 0, tail: 256) == .again)
        #expect(SQLiteCheckpointer.after(left: nil, tail: 256) == .again)
        #expect(SQLiteCheckpointer.after(left: 5, tail: nil) == .again)
    }

    @Test("with every remainder left to the writer, commits beside checkpoints lose nothing and the WAL starts again")
    func writerCopiesTails() async throws {
        // Every commit asks for a checkpoint and no wait between writes, so commits land while one runs: each
        // remainder goes to the writer, which copies it before its next transaction.
        let store = try await store(.normal, .init(request: 1, writer: .max, tail: .max))
        for _ in 0..<300 {
            _ = try await store.write((0..<4).map { _ in SQLitePostbackStoreTests.accepted(TestPostbacks.verified()) })
        }
        #expect(try await store.stats().postbacks == 1200)
        // Once the commits stop, two more writes: the first copies any tail left to it, the second starts the WAL
        // again. Without the writer's copies, requests would wait for it forever and the WAL would hold every
        // commit's frames (300 commits of several frames each); how large it grew meanwhile follows the load.
        store.waitForCheckpoints()
        for _ in 0..<2 {
            _ = try await store.write([SQLitePostbackStoreTests.accepted(TestPostbacks.verified())])
            store.waitForCheckpoints()
        }
        #expect(store.walFrames < 30, "the WAL holds \(store.walFrames) frames")
        try await store.close()
    }

    @Test("a process that only relays goes on checkpointing: the outbox's commits copy a tail left to the writer")
    func relayOnlyCommits() async throws {
        let store = try await store(.full, .init(request: 1, writer: .max, tail: .max))
        let now = Date()
        // Queue, claim and send entries as a relay does, with no postback written in between.
        for round in 0..<150 {
            let items = (0..<4).map { OutboxItem(destination: "partner", idempotencyKey: "k\(round)-\($0)", body: Array("body".utf8)) }
            try await store.enqueue(items, now: now)
            let claimed = try await store.claim(destination: "partner", limit: 4, now: now, leaseUntil: now.addingTimeInterval(60))
            try await store.settle(claimed.map { .sent(id: $0.id) })
        }
        store.waitForCheckpoints()
        for round in 0..<2 {
            try await store.enqueue([OutboxItem(destination: "partner", idempotencyKey: "last-\(round)", body: [])], now: now)
            store.waitForCheckpoints()
        }
        #expect(store.walFrames < 30, "the WAL holds \(store.walFrames) frames")
        try await store.close()
    }
}
