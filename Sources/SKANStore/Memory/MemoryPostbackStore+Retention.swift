import Foundation
import SKANCore

extension MemoryPostbackStore: ExpiringStore {
    /// Drops the leading rows received before `cutoff` (at most `limit`) and frees their dedup keys, as a database's
    /// unique index does when its rows go.
    public func deletePostbacks(receivedBefore cutoff: Date, limit: Int) async throws(StoreError) -> Int {
        let cutoff = ColumnValue.text(Timestamp.iso8601(cutoff))
        return try state.withLock { state throws(StoreError) in
            guard !state.isClosed else { throw StoreError(.closed, "the store is closed") }
            let count = Self.expiredPrefix(state.postbacks.prefix(limit), before: cutoff)
            for row in state.postbacks.prefix(count) { state.keys.removeValue(forKey: Self.dedupKey(row)) }
            state.postbacks.removeFirst(count)
            state.firstID += count
            state.expired += count
            return count
        }
    }

    public func dropBodies(receivedBefore cutoff: Date, after: Int64, limit: Int) async throws(StoreError) -> BodyExpiry {
        let cutoff = ColumnValue.text(Timestamp.iso8601(cutoff))
        return try state.withLock { state throws(StoreError) in
            guard !state.isClosed else { throw StoreError(.closed, "the store is closed") }
            let start = max(Int(after) + 1 - state.firstID, 0)
            guard start < state.postbacks.count else { return BodyExpiry(emptied: 0, through: after) }
            let examined = state.postbacks[start...].prefix(limit)
            let count = Self.expiredPrefix(examined, before: cutoff)
            var emptied = 0
            // The client address goes with the body: both are what arrived, not what the postback says.
            for index in start ..< start + count
            where state.postbacks[index][Self.bodyIndex] != .blob([]) || state.postbacks[index][Self.addressIndex] != .null {
                state.postbacks[index][Self.bodyIndex] = .blob([])
                state.postbacks[index][Self.addressIndex] = .null
                emptied += 1
            }
            return BodyExpiry(emptied: emptied, through: count == 0 ? after : Int64(state.firstID + start + count - 1))
        }
    }

    /// How many of `rows`, from the first, were received before `cutoff`.
    private static func expiredPrefix(_ rows: ArraySlice<[ColumnValue]>, before cutoff: ColumnValue) -> Int {
        rows.prefix { row in
            guard case .text(let received) = row[receivedIndex], case .text(let limit) = cutoff else { return false }
            return received < limit
        }.count
    }

    private static let receivedIndex = PostbackTable.columns.firstIndex { $0.name == PostbackTable.receivedAt.name }!
    private static let bodyIndex = PostbackTable.columns.firstIndex { $0.name == PostbackTable.rawBody.name }!
    private static let addressIndex = PostbackTable.columns.firstIndex { $0.name == PostbackTable.clientAddress.name }!

    /// The dedup key of a stored row, read back from its columns.
    private static func dedupKey(_ row: [ColumnValue]) -> DedupKey {
        func value(_ column: PostbackColumn) -> ColumnValue { row[PostbackTable.columns.firstIndex { $0.name == column.name }!] }
        var window = 0
        if case .integer(let index) = value(PostbackTable.dedupSequenceIndex) { window = Int(index) }
        return DedupKey(framework: value(PostbackTable.framework).text.flatMap(Framework.init(rawValue:)) ?? .skadnetwork,
                        network: value(PostbackTable.adNetworkID).text ?? "",
                        dedupID: value(PostbackTable.transactionID).text ?? "", window: window)
    }
}
