/// The read side of a ``MemoryPostbackStore``: aggregates answered in Swift (``MemoryAggregate``), exports of its
/// rows in the engines' column order. It reads the store as it is at each call, closed or not, as a reader of a
/// file reads what the collector left in it.
public struct MemoryPostbackReader: PostbackReader {
    private let store: MemoryPostbackStore

    /// A reader of `store`.
    public init(_ store: MemoryPostbackStore) {
        self.store = store
    }

    public func aggregate(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) async throws {
        let rows = store.state.withLock { $0.postbacks }
        for row in MemoryAggregate(query: query).run(rows) { try each(row) }
    }

    /// None: the memory engine answers in Swift, not SQL.
    public func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) { ("", []) }

    public func export(_ table: ExportTable, header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) async throws {
        let rows: [[ColumnValue]] = store.state.withLock { state in
            switch table {
            case .postbacks: state.postbacks.enumerated().map { [.integer(Int64($0.offset + state.firstID))] + $0.element }
            case .rejected: state.rejected.map { [.integer(Int64($0.id))] + $0.values }
            case .repeats: state.repeats.enumerated().map { [.integer(Int64($0.offset + 1))] + $0.element }
            }
        }
        switch table {
        case .postbacks: try header(PostbackTable.exportColumns)
        case .rejected: try header(RejectedTable.exportColumns)
        case .repeats: try header(RepeatTable.exportColumns)
        }
        for row in rows { try Self.withExportRow(row, each) }
    }

    /// The rules in Swift (``PostbackCheck/holds(_:)``): the reference the engines' SQL is held to.
    public func checks(from: String?, to: String?) async throws -> [PostbackChecks] {
        let rows = store.state.withLock { $0.postbacks }
        var byNetwork: [String: PostbackChecks] = [:]
        for row in rows {
            func value(_ column: PostbackColumn) -> ColumnValue { row[MemoryPostbackStore.index(of: column)] }
            let day = String((value(PostbackTable.receivedAt).text ?? "").prefix(10))
            if let from, day < from { continue }
            if let to, day > to { continue }
            let network = value(PostbackTable.adNetworkID).text ?? ""
            var checks = byNetwork[network] ?? PostbackChecks(network: network)
            for rule in PostbackCheck.allCases where rule.holds(value) { checks.rules[rule, default: 0] += 1 }
            if value(PostbackTable.didWin).boolean ?? true {
                checks.winningBySide[CopySide(endpoint: value(PostbackTable.endpoint).text ?? ""), default: 0] += 1
            }
            byNetwork[network] = checks
        }
        return byNetwork.values.sorted { $0.network < $1.network }
    }

    public func latestConflicts(limit: Int) async throws -> [ConflictSummary] {
        let rows = store.state.withLock { $0.repeats }
        let names = ConflictSummary.columns.map { name in RepeatTable.columns.firstIndex { $0.name == name.name }! }
        return rows.reversed().filter { $0[RepeatTable.differingIndex] != .text("") }.prefix(max(limit, 0))
            .map { row in ConflictSummary(values: names.map { row[$0] }) }
    }

    public func repeatCounts(from: String?, to: String?) async throws -> [RepeatCounts] {
        RepeatCounts.fold(store.state.withLock { $0.repeats }, from: from, to: to)
    }

    /// The store's outbox as it is now, closed or not (``MemoryOutboxTable``).
    public func outboxDepths() async throws -> [OutboxDepth] { store.state.withLock { $0.outbox.depths() } }

    public func deadLetters(limit: Int) async throws -> [DeadLetter] {
        store.state.withLock { $0.outbox.deadLetters(limit: limit) }
    }

    public func stats() async throws -> StoreStats { store.state.withLock { MemoryPostbackStore.stats($0) } }

    public func latestRefusals(limit: Int) async throws -> [RefusalSummary] {
        let newest = store.state.withLock { $0.rejected.suffix(max(limit, 0)).reversed().map(\.values) }
        return newest.map { values in
            func text(_ name: String) -> String? { RejectedTable.columns.firstIndex(of: name).flatMap { values[$0].text } }
            return RefusalSummary(receivedAt: text("received_at") ?? "", status: text("status") ?? "", field: text("field"),
                                  reason: text("reason") ?? "", endpoint: text("endpoint") ?? "")
        }
    }

    /// Hands `row` to `body` as an ``ExportRow`` whose text and blobs point into one buffer, valid during the call.
    static func withExportRow(_ row: [ColumnValue], _ body: (ExportRow) throws -> Void) throws {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>?] = []
        for value in row {
            let start = bytes.count
            switch value {
            case .text(let text): bytes += text.utf8
            case .blob(let blob): bytes += blob
            case .null, .integer: ranges.append(nil); continue
            }
            ranges.append(start..<bytes.count)
        }
        try bytes.withUnsafeBufferPointer { buffer in
            try body(ExportRow(count: row.count) { index in
                switch (row[index], ranges[index]) {
                case (.integer(let number), _): .integer(number)
                case (.text, let range?): .text(UnsafeBufferPointer(rebasing: buffer[range]))
                case (.blob, let range?): .blob(UnsafeBufferPointer(rebasing: buffer[range]))
                default: .null
                }
            })
        }
    }
}
