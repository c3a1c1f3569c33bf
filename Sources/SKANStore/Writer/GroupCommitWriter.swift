import Synchronization

/// The one writer in front of a ``PostbackStore``: callers queue entries and wait; the writer commits whatever has
/// queued up in one transaction, then answers each caller with its own outcomes.
///
/// This is group commit. Under load, many requests arrive while a transaction runs, and the next transaction takes
/// them all, so the cost of a commit (and its fsync) is shared; when idle, a lone request commits at once. Each
/// caller still resumes only after the transaction holding its entries has committed.
public final class GroupCommitWriter: Sendable {
    /// Called once, from the writer, with a submission's outcomes or the error that stopped its transaction.
    public typealias Completion = @Sendable (Result<[StoreOutcome], StoreError>) -> Void
    /// Called once per failed transaction, from the writer, with the error and how many entries it lost: the
    /// one place to log a store failure (every caller of the batch also receives the error, and logging there
    /// repeated one failure per postback).
    public typealias FailureObserver = @Sendable (StoreError, _ entries: Int) -> Void

    private struct Pending {
        let entries: [StoreEntry]
        let completion: Completion
    }

    private struct State {
        var pending: [Pending] = []
        var isClosed = false
    }

    private let store: any PostbackStore
    private let maximumBatch: Int
    private let commitInterval: Duration
    private let sleep: @Sendable (Duration) async -> Void
    private let onFailure: FailureObserver?
    private let state = Mutex(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// A writer for `store` that commits at most about `maximumBatch` entries per transaction (a caller's entries
    /// are never split, so one large submission may exceed it).
    ///
    /// `commitInterval` spaces commits under load: after a transaction, the writer waits out the rest of the
    /// interval (counted from that transaction's start) before taking the next batch, so that more entries share
    /// each commit and its fsync. A writer that was idle commits at once; the wait only comes between back-to-back
    /// commits, and adds at most the interval to a reply. `sleep` does the waiting (tests pass one that returns).
    /// `onFailure` hears of each failed transaction once.
    public init(store: any PostbackStore, maximumBatch: Int = 2048, commitInterval: Duration = .zero,
                sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) },
                onFailure: FailureObserver? = nil) {
        self.store = store
        self.onFailure = onFailure
        self.maximumBatch = maximumBatch
        self.commitInterval = commitInterval
        self.sleep = sleep
        // One buffered wake-up is enough: the loop drains everything pending each time it wakes.
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues `entries` and returns their outcomes, in order, once they are durable.
    /// Throws ``StoreError`` when the transaction failed or the writer has shut down.
    public func submit(_ entries: [StoreEntry]) async throws(StoreError) -> [StoreOutcome] {
        if entries.isEmpty { return [] }
        let result: Result<[StoreOutcome], StoreError> = await withCheckedContinuation { continuation in
            submit(entries) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Queues `entries`; `completion` receives their outcomes, in order, once they are durable, or the error.
    ///
    /// For callers that are not async, such as a SwiftNIO channel handler: it runs on the writer's thread (with
    /// a server engine, the event loop of the store's connections), so it must not block, and should only hand the result
    /// on (to its event loop, say).
    public func submit(_ entries: [StoreEntry], completion: @escaping Completion) {
        if entries.isEmpty { return completion(.success([])) }
        let accepted = state.withLock { state in
            guard !state.isClosed else { return false }
            state.pending.append(Pending(entries: entries, completion: completion))
            return true
        }
        if accepted {
            wake.yield()
        } else {
            completion(.failure(StoreError(.closed, "the store is shutting down")))
        }
    }

    /// Entries queued and not yet taken into a transaction: the writer's backlog.
    public var queuedEntries: Int {
        state.withLock { $0.pending.reduce(0) { $0 + $1.entries.count } }
    }

    /// Queues one entry; see ``submit(_:)``.
    public func submit(_ entry: StoreEntry) async throws(StoreError) -> StoreOutcome {
        try await submit([entry])[0]
    }

    /// Commits batches until ``finish()`` is called, then commits what is still queued and returns.
    public func run() async {
        guard let executor = store.writerExecutor else { return await commitUntilFinished() }
        await withTaskExecutorPreference(executor) { await commitUntilFinished() }
    }

    private func commitUntilFinished() async {
        for await _ in wakeups {
            await drain()
        }
        await drain()
    }

    /// Stops taking entries; ``run()`` returns once everything already queued has committed.
    public func finish() {
        state.withLock { $0.isClosed = true }
        wake.finish()
    }

    private func drain() async {
        while true {
            let batch = takeBatch()
            if batch.isEmpty { return }
            let started = ContinuousClock.now
            do {
                let outcomes = try await store.write(batch.flatMap(\.entries))
                var offset = 0
                for pending in batch {
                    pending.completion(.success(Array(outcomes[offset..<offset + pending.entries.count])))
                    offset += pending.entries.count
                }
            } catch {
                onFailure?(error, batch.reduce(0) { $0 + $1.entries.count })
                for pending in batch { pending.completion(.failure(error)) }
            }
            let rest = commitInterval - (ContinuousClock.now - started)
            if rest > .zero && queuedEntries < maximumBatch { await sleep(rest) }
        }
    }

    private func takeBatch() -> [Pending] {
        state.withLock { state in
            var count = 0
            var taken = 0
            while taken < state.pending.count && (taken == 0 || count + state.pending[taken].entries.count <= maximumBatch) {
                count += state.pending[taken].entries.count
                taken += 1
            }
            let batch = Array(state.pending[..<taken])
            state.pending.removeFirst(taken)
            return batch
        }
    }
}
