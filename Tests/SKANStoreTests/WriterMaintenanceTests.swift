import Foundation
import SKANCore
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Synchronization
import Testing

/// A store whose deferred work is a number of steps, recording what the writer had queued at each step and how
/// many batches it had written by then.
final class MaintainingStore: PostbackStore {
    let inner = MemoryPostbackStore()
    let steps: Mutex<Int>
    let failsOnce: Mutex<Bool>
    /// Per call of ``maintain()``: the writer's queue and the batches written before it.
    let calls = Mutex<[(queued: Int, batches: Int)]>([])
    let batches = Mutex(0)
    /// The writer, to read its queue; and what to do during the first step.
    let writer = Mutex<GroupCommitWriter?>(nil)
    let duringFirstStep = Mutex<(@Sendable () -> Void)?>(nil)

    init(steps: Int, failsOnce: Bool = false) {
        self.steps = Mutex(steps)
        self.failsOnce = Mutex(failsOnce)
    }

    func migrate() async throws(StoreError) {}
    func write(_ entries: [StoreEntry]) async throws(StoreError) -> [StoreOutcome] {
        batches.withLock { $0 += 1 }
        return try await inner.write(entries)
    }
    func maintain() async throws(StoreError) -> Bool {
        let queued = writer.withLock { $0 }?.queuedEntries ?? -1
        let isFirst = calls.withLock { calls in
            calls.append((queued, batches.withLock { $0 }))
            return calls.count == 1
        }
        if isFirst, let action = duringFirstStep.withLock({ $0 }) { action() }
        if failsOnce.withLock({ let fails = $0; $0 = false; return fails }) {
            throw StoreError(.writeFailed, "the fold failed")
        }
        return steps.withLock { steps in
            steps -= 1
            return steps > 0
        }
    }
    func postbacks(transactionID: String) async throws(StoreError) -> [StoredPostback] { [] }
    func stats() async throws(StoreError) -> StoreStats { try await inner.stats() }
    func health() async -> StoreError? { nil }
    func close() async throws(StoreError) {}
}

@Suite("Group commit writer's idle maintenance")
struct WriterMaintenanceTests {
    @Test("steps only with an empty queue, until the store says no more, and writes what arrives between steps first")
    func idleSteps() async throws {
        let store = MaintainingStore(steps: 4)
        let writer = GroupCommitWriter(store: store)
        store.writer.withLock { $0 = writer }
        let late = Mutex<[StoreOutcome]>([])
        // A postback arriving during the first step is written before the second.
        store.duringFirstStep.withLock {
            $0 = { writer.submit([SQLitePostbackStoreTests.accepted(TestPostbacks.verified())]) { result in
                late.withLock { $0 += (try? result.get()) ?? [] }
            } }
        }
        let running = Task { await writer.run() }
        #expect(try await writer.submit(SQLitePostbackStoreTests.accepted(TestPostbacks.verified())) == .stored)
        while store.calls.withLock({ $0.count }) < 4 { await Task.yield() }
        writer.finish()
        await running.value
        let calls = store.calls.withLock { $0 }
        #expect(calls.allSatisfy { $0.queued == 0 }, "never beside queued entries")
        // Steps until the store answers false; a later wake-up (the late postback's, finishing) may ask once more.
        #expect(calls.prefix(4).map(\.batches) == [1, 2, 2, 2], "the late postback is written before the second step")
        #expect(calls.count <= 6 && store.steps.withLock { $0 } <= 0)
        #expect(late.withLock { $0 } == [.stored])
    }

    @Test("a failed step is heard once and ends the steps; writes go on")
    func failedStep() async throws {
        let store = MaintainingStore(steps: 10, failsOnce: true)
        let failures = Mutex<[Int]>([])
        let writer = GroupCommitWriter(store: store, onFailure: { _, entries in failures.withLock { $0.append(entries) } })
        let running = Task { await writer.run() }
        #expect(try await writer.submit(SQLitePostbackStoreTests.accepted(TestPostbacks.verified())) == .stored)
        while store.calls.withLock({ $0.count }) < 1 { await Task.yield() }
        #expect(try await writer.submit(SQLitePostbackStoreTests.accepted(TestPostbacks.verified())) == .stored)
        while store.calls.withLock({ $0.count }) < 10 { await Task.yield() }
        writer.finish()
        await running.value
        #expect(failures.withLock { $0 } == [0], "one failure, which lost no entries")
        #expect(store.calls.withLock { $0.map(\.batches) }.prefix(2) == [1, 2], "the failure ended the first idle spell")
    }
}
