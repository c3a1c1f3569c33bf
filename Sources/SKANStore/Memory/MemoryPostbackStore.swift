import Foundation
import SKANCore
import Synchronization

/// A ``PostbackStore`` in the process's memory: nothing survives the process. For tests of the layers above the
/// store, and the reference the store conformance suite holds every engine to: the same outcomes, the same
/// counts, the same rows back, in a hundred lines anyone can read.
public final class MemoryPostbackStore: PostbackStore {
    struct State {
        var postbacks: [StoredPostback] = []
        var keys: Set<DedupKey> = []
        var byVersion: [String: Int] = [:]
        /// Kept refusals, oldest first, with their statuses.
        var rejected: [String] = []
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
                    guard state.keys.insert(accepted.dedupKey).inserted else {
                        outcomes.append(.duplicate)
                        state.duplicates += 1
                        continue
                    }
                    state.postbacks.append(Self.stored(accepted))
                    state.byVersion[accepted.statsVersion, default: 0] += 1
                    if !accepted.outbox.isEmpty { state.outbox.enqueue(accepted.outbox, now: accepted.receivedAt) }
                    outcomes.append(.stored)
                case .rejected(let rejected):
                    state.rejected.append(rejected.status)
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

    public func postbacks(transactionID: String) async throws(StoreError) -> [StoredPostback] {
        try state.withLock { state throws(StoreError) in
            guard !state.isClosed else { throw StoreError(.closed, "the store is closed") }
            return state.postbacks.filter { $0.fields.dedupID == transactionID }
        }
    }

    public func stats() async throws(StoreError) -> StoreStats {
        try state.withLock { state throws(StoreError) in
            guard !state.isClosed else { throw StoreError(.closed, "the store is closed") }
            var statuses: [String: Int] = [:]
            for status in state.rejected { statuses[status, default: 0] += 1 }
            return StoreStats(postbacks: state.postbacks.count, postbacksByVersion: state.byVersion,
                              rejected: state.rejected.count, rejectedByStatus: statuses,
                              rejectedDropped: state.rejectedDropped, duplicates: state.duplicates)
        }
    }

    public func health() async -> StoreError? {
        state.withLock { $0.isClosed ? StoreError(.closed, "the store is closed") : nil }
    }

    public func close() async throws(StoreError) {
        state.withLock { $0.isClosed = true }
    }

    /// What a database would give back: the neutral fields with the extras as JSON text, the time as stored.
    private static func stored(_ accepted: AcceptedPostback) -> StoredPostback {
        var fields = accepted.attribution.fields
        let extras: String? = if case .text(let text) = PostbackTable.extras.value(accepted) { text } else { nil }
        fields.extras = []
        return StoredPostback(framework: accepted.attribution.framework, fields: fields, extrasJSON: extras,
                              rawBody: accepted.rawBody, receivedAt: Timestamp.iso8601(accepted.receivedAt),
                              keyName: accepted.attribution.keyName, layout: accepted.attribution.scheme,
                              endpoint: accepted.endpoint)
    }
}
