import Foundation
import SKANCore
import SKANTestSupport
import SKANStore
import SKANStoreSQLite
import Synchronization
import Testing

/// A store that records the size of each batch it was given.
final class CountingStore: PostbackStore {
    let inner: SQLitePostbackStore
    let batches = Mutex<[Int]>([])

    init() throws { inner = try SQLitePostbackStore(inMemoryWith: RejectionCap()) }

    func migrate() async throws(StoreError) { try await inner.migrate() }
    func write(_ entries: [StoreEntry]) async throws(StoreError) -> [StoreOutcome] {
        batches.withLock { $0.append(entries.count) }
        return try await inner.write(entries)
    }
    func postbacks(transactionID: String) async throws(StoreError) -> [StoredPostback] {
        try await inner.postbacks(transactionID: transactionID)
    }
    func stats() async throws(StoreError) -> StoreStats { try await inner.stats() }
    func health() async -> StoreError? { await inner.health() }
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

    @Test("commits at once when idle, then waits out the commit interval so that later arrivals share one commit")
    func commitInterval() async throws {
        let store = try CountingStore()
        let sleeps = Mutex<[Duration]>([])
        let later = (0..<5).map { _ in SQLitePostbackStoreTests.accepted(TestPostbacks.verified()) }
        let laterOutcomes = Mutex<[StoreOutcome]>([])
        // A writer whose sleep returns at once, having recorded how long it was asked to wait; during the first
        // wait, five entries arrive through the completion API.
        let box = Mutex<GroupCommitWriter?>(nil)
        let writer = GroupCommitWriter(store: store, commitInterval: .seconds(3600)) { duration in
            let first = sleeps.withLock { $0.append(duration); return $0.count == 1 }
            guard first, let writer = box.withLock({ $0 }) else { return }
            for entry in later {
                writer.submit([entry]) { result in laterOutcomes.withLock { $0 += (try? result.get()) ?? [] } }
            }
        }
        box.withLock { $0 = writer }
        let running = Task { await writer.run() }
        let first = try await writer.submit(SQLitePostbackStoreTests.accepted(TestPostbacks.verified()))
        #expect(first == .stored)
        while laterOutcomes.withLock({ $0.count }) < later.count { await Task.yield() }
        writer.finish()
        await running.value
        #expect(store.batches.withLock { $0 } == [1, 5], "the five that arrived during the wait share one commit")
        #expect(laterOutcomes.withLock { $0 } == Array(repeating: .stored, count: 5))
        let asked = sleeps.withLock { $0 }
        #expect(asked.count == 2, "one wait after each commit, none before the first")
        #expect(asked.allSatisfy { $0 > .seconds(3590) && $0 <= .seconds(3600) }, "the rest of the interval: \(asked)")
    }

    @Test("never waits with no commit interval")
    func noInterval() async throws {
        let sleeps = Mutex(0)
        let writer = GroupCommitWriter(store: try SQLitePostbackStore(inMemoryWith: RejectionCap())) { _ in
            sleeps.withLock { $0 += 1 }
        }
        let running = Task { await writer.run() }
        for _ in 0..<3 { _ = try await writer.submit(SQLitePostbackStoreTests.accepted(TestPostbacks.verified())) }
        writer.finish()
        await running.value
        #expect(sleeps.withLock { $0 } == 0)
    }

    @Test("answers a completion with the closed error after finishing")
    func closedCompletion() async throws {
        let writer = GroupCommitWriter(store: try SQLitePostbackStore(inMemoryWith: RejectionCap()))
        writer.finish()
        let result = Mutex<Result<[StoreOutcome], StoreError>?>(nil)
        writer.submit([SQLitePostbackStoreTests.accepted(TestPostbacks.verified())]) { outcome in
            result.withLock { $0 = outcome }
        }
        guard case .failure(let error) = try #require(result.withLock { $0 }) else {
            Issue.record("a closed writer accepted entries")
            return
        }
        #expect(error.code == .closed)
    }
}

/// A task executor on one serial dispatch queue, which a job can tell it runs on.
final class QueueTaskExecutor: TaskExecutor {
    static let key = DispatchSpecificKey<Bool>()
    let queue = DispatchQueue(label: "writer-executor-test")

    init() { queue.setSpecific(key: Self.key, value: true) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}

/// A store that prefers `executor` for its writes (or has no preference) and records where each write ran.
final class PlacedStore: PostbackStore {
    let inner = MemoryPostbackStore()
    let executor: QueueTaskExecutor?
    let placements = Mutex<[Bool]>([])

    init(executor: QueueTaskExecutor?) { self.executor = executor }

    var writerExecutor: (any TaskExecutor)? { executor }
    func migrate() async throws(StoreError) {}
    func write(_ entries: [StoreEntry]) async throws(StoreError) -> [StoreOutcome] {
        placements.withLock { $0.append(QueueTaskExecutor.isCurrent) }
        await Task.yield()
        let outcomes = try await inner.write(entries)
        // After an await, too: a write that suspends resumes on the preferred executor.
        placements.withLock { $0.append(QueueTaskExecutor.isCurrent) }
        return outcomes
    }
    func postbacks(transactionID: String) async throws(StoreError) -> [StoredPostback] { [] }
    func stats() async throws(StoreError) -> StoreStats { try await inner.stats() }
    func health() async -> StoreError? { nil }
    func close() async throws(StoreError) {}
}

@Suite("Group commit writer's executor")
struct WriterExecutorTests {
    /// Submits three postbacks one after the other through a running writer, and returns where the writes ran.
    func placements(_ store: PlacedStore) async throws -> [Bool] {
        let writer = GroupCommitWriter(store: store)
        async let running: Void = writer.run()
        for _ in 0..<3 { #expect(try await writer.submit(SQLitePostbackStoreTests.accepted(TestPostbacks.verified())) == .stored) }
        writer.finish()
        await running
        return store.placements.withLock { $0 }
    }

    @Test("runs every write on the executor its store prefers, before and after the write suspends")
    func preferred() async throws {
        #expect(try await placements(PlacedStore(executor: QueueTaskExecutor())) == Array(repeating: true, count: 6))
    }

    @Test("runs writes on the shared pool when the store has no preference")
    func noPreference() async throws {
        #expect(try await placements(PlacedStore(executor: nil)) == Array(repeating: false, count: 6))
    }
}
