import Foundation
import SKANCore
import SKANTestSupport
import SKANStore
import Synchronization
import Testing

/// A store that records the size of each batch it was given.
final class CountingStore: PostbackStore {
    let inner: SQLitePostbackStore
    let batches = Mutex<[Int]>([])

    init() throws { inner = try SQLitePostbackStore(inMemoryWith: RejectionCap()) }

    func write(_ entries: [StoreEntry]) async throws(StoreError) -> [StoreOutcome] {
        batches.withLock { $0.append(entries.count) }
        return try await inner.write(entries)
    }
    func postbacks(transactionID: String) async throws(StoreError) -> [StoredPostback] {
        try await inner.postbacks(transactionID: transactionID)
    }
    func stats() async throws(StoreError) -> StoreStats { try await inner.stats() }
    func close() async throws(StoreError) { try await inner.close() }
}

@Suite("Group commit writer")
struct GroupCommitWriterTests {
    @Test("commits what queued up in one transaction and answers each caller with its own outcome")
    func groupCommit() async throws {
        let store = try CountingStore()
        let writer = GroupCommitWriter(store: store)
        let pairs = (0..<300).map { _ in TestPostbacks.verified() }
        let submissions = pairs + pairs.prefix(50)
        let outcomes = try await withThrowingTaskGroup(of: StoreOutcome.self) { callers in
            for pair in submissions {
                callers.addTask { try await writer.submit(SQLitePostbackStoreTests.accepted(pair)) }
            }
            // The writer starts only once every caller waits, as when requests pile up behind a slow commit.
            while writer.queuedEntries < submissions.count { await Task.yield() }
            callers.addTask { await writer.run(); return .rejectionRecorded }
            var results: [StoreOutcome] = []
            for try await outcome in callers {
                results.append(outcome)
                if results.count == submissions.count { writer.finish() }
            }
            return results
        }
        #expect(outcomes.filter { $0 == .stored }.count == 300)
        #expect(outcomes.filter { $0 == .duplicate }.count == 50)
        #expect(store.batches.withLock { $0 } == [350])
    }

    @Test("refuses entries after finishing")
    func closed() async throws {
        let writer = GroupCommitWriter(store: try SQLitePostbackStore(inMemoryWith: RejectionCap()))
        writer.finish()
        await writer.run()
        await #expect(throws: StoreError.self) {
            try await writer.submit(SQLitePostbackStoreTests.accepted(TestPostbacks.verified()))
        }
    }

    @Test("answers every caller when submissions keep arriving while it commits",
          .timeLimit(.minutes(1)))
    func steadyArrivals() async throws {
        let store = try CountingStore()
        let writer = GroupCommitWriter(store: store)
        let running = Task { await writer.run() }
        // 40 callers, 25 submissions each, one after another: the writer sleeps and wakes many times. A lost
        // wake-up leaves a caller waiting forever (the time limit fails the test).
        let stored = try await withThrowingTaskGroup(of: Int.self) { callers in
            for _ in 0..<40 {
                callers.addTask {
                    var stored = 0
                    for _ in 0..<25 {
                        let outcome = try await writer.submit(SQLitePostbackStoreTests.accepted(TestPostbacks.verified()))
                        if outcome == .stored { stored += 1 }
                    }
                    return stored
                }
            }
            return try await callers.reduce(0, +)
        }
        writer.finish()
        await running.value
        #expect(stored == 1000)
        #expect(store.batches.withLock { $0.reduce(0, +) } == 1000)
    }
}
