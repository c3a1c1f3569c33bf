import Foundation
import SKANCore
import Synchronization

/// A ``PostbackStore`` in the process's memory: nothing survives the process. For tests of the layers above the
/// store, and the reference the store conformance suite holds every engine to: the same outcomes, the same
/// counts, the same rows back, in a hundred lines anyone can read. Its rows are ``PostbackTable``'s and
/// ``RejectedTable``'s columns, so that ``MemoryPostbackReader`` answers reports over what an engine would store.
public final class MemoryPostbackStore: PostbackStore {
    struct State {
        /// Stored postbacks in arrival order, each in ``PostbackTable/columns``' order; a row's id is its offset +
        /// ``firstID``.
        var postbacks: [[ColumnValue]] = []
        /// Each stored key's row id (an offset in ``postbacks`` plus ``firstID``).
        var keys: [DedupKey: Int] = [:]
        /// Kept repeats (``RepeatTable``), in ``RepeatTable/columns``' order, oldest first; a row's id is its offset + 1.
        var repeats: [[ColumnValue]] = []
        var repeatKeys: Set<[ColumnValue]> = []
        var conflicts = 0
        var conflictsByField: [String: Int] = [:]
        /// The id of the first row: 1, until retention deletes the oldest.
        var firstID = 1
        /// Rows retention deleted: still counted by ``stats()``, which counts what was accepted, as the engines'
        /// counters do.
        var expired = 0
        var byKey: [PostbackCounterKey: Int] = [:]
        /// Kept refusals, oldest first, in ``RejectedTable/columns``' order, with their ids (which only grow).
        var rejected: [(id: Int, values: [ColumnValue])] = []
        var rejectedCount = 0
        var rejectedDropped = 0
        var duplicates = 0
        var isClosed = false
        /// The relay's queue (``MemoryOutboxTable``), written under the same lock as the postbacks.
        var outbox = MemoryOutboxTable()
    }

    let state = Mutex(State())
    private let cap: RejectionCap

    /// An empty store keeping refusals within `rejectionCap`.
    public init(rejectionCap: RejectionCap = RejectionCap()) {
        cap = rejectionCap
    }

    /// Nothing to migrate: the store has no schema.
    public func migrate() async throws(StoreError) {}

    public func write(_ entries: [StoreEntry]) async throws(StoreError) -> [StoreOutcome] {
        let cap = cap
        return try state.withLock { state throws(StoreError) in
            guard !state.isClosed else { throw StoreError(.closed, "the store is closed") }
            var outcomes: [StoreOutcome] = []
            for entry in entries {
                switch entry {
                case .accepted(let accepted):
                    let key = accepted.dedupKey
                    if let row = state.keys[key] {
                        Self.keep(accepted, repeating: state.postbacks[row - state.firstID], in: &state)
                        outcomes.append(.duplicate)
                        state.duplicates += 1
                        continue
                    }
                    state.keys[key] = state.firstID + state.postbacks.count
                    state.postbacks.append(PostbackTable.columns.map { $0.value(accepted) })
                    state.byKey[accepted.counterKey, default: 0] += 1
                    if !accepted.outbox.isEmpty { state.outbox.enqueue(accepted.outbox, now: accepted.receivedAt) }
                    outcomes.append(.stored)
                case .rejected(let rejected):
                    state.rejectedCount += 1
                    state.rejected.append((state.rejectedCount, RejectedTable.values(rejected, cap: cap)))
                    if state.rejected.count > cap.maximumRows {
                        let excess = state.rejected.count - cap.maximumRows
                        state.rejected.removeFirst(excess)
                        state.rejectedDropped += excess
                    }
                    outcomes.append(.rejectionRecorded)
                }
            }
            return outcomes
        }
    }

    /// Keeps `accepted`, a repeat of the stored `row`, in ``State/repeats`` when ``RepeatComparison`` says to.
    private static func keep(_ accepted: AcceptedPostback, repeating row: [ColumnValue], in state: inout State) {
        let first = RepeatTable.firstColumns.map { column in row[Self.index(of: column)] }
        guard let comparison = RepeatComparison(first: first, repeated: accepted),
              state.repeatKeys.insert(comparison.uniqueKey).inserted else { return }
        state.repeats.append(comparison.values)
        if comparison.isConflict {
            state.conflicts += 1
            for field in comparison.differing { state.conflictsByField[field, default: 0] += 1 }
        }
    }

    /// Where ``PostbackTable/columns`` has `column`.
    static func index(of column: PostbackColumn) -> Int {
        PostbackTable.columns.firstIndex { $0.name == column.name }!
    }

    public func postbacks(transactionID: String) async throws(StoreError) -> [StoredPostback] {
        try state.withLock { state throws(StoreError) in
            guard !state.isClosed else { throw StoreError(.closed, "the store is closed") }
            let key = PostbackTable.columns.firstIndex { $0.name == PostbackTable.transactionID.name }!
            return state.postbacks.filter { $0[key] == .text(transactionID) }.map(Self.stored)
        }
    }

    public func stats() async throws(StoreError) -> StoreStats {
        try state.withLock { state throws(StoreError) in
            guard !state.isClosed else { throw StoreError(.closed, "the store is closed") }
            return Self.stats(state)
        }
    }

    /// The counts of `state`, closed or not: what a reader of the store sees.
    static func stats(_ state: State) -> StoreStats {
        var statuses: [String: Int] = [:]
        for (_, values) in state.rejected {
            if case .text(let status) = values[RejectedTable.statusIndex] { statuses[status, default: 0] += 1 }
        }
        return StoreStats(postbacks: state.postbacks.count + state.expired, postbacksByKey: state.byKey,
                          rejected: state.rejected.count, rejectedByStatus: statuses,
                          rejectedDropped: state.rejectedDropped, duplicates: state.duplicates,
                          conflicts: state.conflicts, conflictsByField: state.conflictsByField)
    }

    public func health() async -> StoreError? {
        state.withLock { $0.isClosed ? StoreError(.closed, "the store is closed") : nil }
    }

    public func close() async throws(StoreError) {
        state.withLock { $0.isClosed = true }
    }

    /// What a database would give back: the row decoded by its columns, as every engine decodes its rows.
    static func stored(_ row: [ColumnValue]) -> StoredPostback {
        StoredPostback { column in
            PostbackTable.columns.firstIndex { $0.name == column.name }.map { row[$0] } ?? .null
        }
    }
}
