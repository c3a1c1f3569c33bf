import Foundation
import GRDB
import SKANCore
import SKANStore

extension SQLitePostbackStore {
    /// The insert, made from ``PostbackTable/columns``: a repeat of the unique key changes no row.
    static let insertPostback = """
        INSERT INTO \(PostbackTable.name) (\(PostbackTable.columns.map(\.name).joined(separator: ", ")))
        VALUES (\(PostbackTable.columns.map { _ in "?" }.joined(separator: ", ")))
        ON CONFLICT DO NOTHING
        """

    /// What ``RepeatComparison`` reads of the stored row a duplicate repeats, found by the unique key's index.
    static let selectFirst = """
        SELECT \(RepeatTable.firstColumns.map(\.name).joined(separator: ", ")) FROM \(PostbackTable.name)
        WHERE \(PostbackTable.uniqueKey.map { "\($0.name) = ?" }.joined(separator: " AND "))
        """

    static let insertRepeat = """
        INSERT INTO \(RepeatTable.name) (\(RepeatTable.columns.map(\.name).joined(separator: ", ")))
        VALUES (\(RepeatTable.columns.map { _ in "?" }.joined(separator: ", ")))
        ON CONFLICT DO NOTHING
        """

    static let insertRejection = """
        INSERT INTO rejected_postbacks (received_at, status, field, reason, version, transaction_id, ad_network_id,
            endpoint, body_length, raw_body)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static let addToCounter = """
        INSERT INTO counters (name, value) VALUES (?, ?)
        ON CONFLICT (name) DO UPDATE SET value = value + excluded.value
        """

    /// Runs inside the writer's transaction: one insert per entry, the rejection cap, then the counters that
    /// `stats()` reads, so that they always agree with the rows committed beside them. Returns the outcomes and,
    /// when it stored a postback, the newest id (the rollups are folded beside the writer: ``SQLiteRollupFolder``).
    static func write(_ entries: [StoreEntry], cap: RejectionCap, in db: Database) throws -> ([StoreOutcome], lastID: Int64?) {
        var outcomes: [StoreOutcome] = []
        outcomes.reserveCapacity(entries.count)
        var changes: [String: Int] = [:]
        // Per batch, not per row: the statement cache is keyed by the SQL text, hashed on every lookup.
        var insert: Statement?
        var storedByVersion: [String: Int] = [:]
        var rejections = 0
        var lastID: Int64?
        for entry in entries {
            switch entry {
            case .accepted(let accepted):
                let statement = try insert ?? db.cachedStatement(sql: insertPostback)
                insert = statement
                // ON CONFLICT DO NOTHING changes no row for a repeat of the dedup key.
                if try row(accepted).run(statement, in: db) == 0 {
                    outcomes.append(.duplicate)
                    changes[StatCounter.duplicates, default: 0] += 1
                    if let conflict = try keepRepeat(accepted, in: db) {
                        for name in StatCounter.conflictCounters(conflict.differing) { changes[name, default: 0] += 1 }
                    }
                } else {
                    outcomes.append(.stored)
                    lastID = db.lastInsertedRowID
                    if !accepted.outbox.isEmpty {
                        try SQLiteOutbox.enqueue(accepted.outbox, now: accepted.receivedAt, postbackID: lastID,
                                                 rawBody: accepted.rawBody, in: db)
                    }
                    storedByVersion[accepted.statsVersion, default: 0] += 1
                }
            case .rejected(let rejected):
                let statement = try db.cachedStatement(sql: insertRejection)
                let body = rejected.rawBody.prefix(cap.maximumBodyBytes)
                // Every value a client chose is cut, so that a row's size has the bound the cap states.
                let value = { (text: String) in Excerpt.of(text, maximumBytes: cap.maximumValueBytes) }
                try statement.execute(arguments: [
                    Timestamp.iso8601(rejected.receivedAt), rejected.status, rejected.field.map(value),
                    Excerpt.of(rejected.reason, maximumBytes: cap.maximumReasonBytes),
                    rejected.version.map(value), rejected.transactionID.map(value), rejected.adNetworkID.map(value),
                    value(rejected.endpoint), rejected.rawBody.count, Data(body),
                ])
                rejections += 1
                changes[StatCounter.rejectedPrefix + rejected.status, default: 0] += 1
                outcomes.append(.rejectionRecorded)
            }
        }
        for (version, count) in storedByVersion { changes[StatCounter.postbacksPrefix + version] = count }
        if rejections > 0 { try enforce(cap, changes: &changes, in: db) }
        let add = try db.cachedStatement(sql: addToCounter)
        for (name, change) in changes where change != 0 {
            try add.execute(arguments: [name, change])
        }
        return (outcomes, lastID)
    }

    /// Compares a duplicate with the row it repeats and keeps it in ``RepeatTable`` when ``RepeatComparison`` says
    /// to: only duplicates come here, so an accepted postback pays nothing. Returns the comparison when it was a
    /// conflict newly kept.
    private static func keepRepeat(_ accepted: AcceptedPostback, in db: Database) throws -> RepeatComparison? {
        let key = PostbackTable.uniqueKey.map { $0.value(accepted).bound }
        guard let stored = try Row.fetchOne(db.cachedStatement(sql: selectFirst), arguments: StatementArguments(key)) else {
            return nil
        }
        let first = RepeatTable.firstColumns.indices.map { ColumnValue(stored[$0] as DatabaseValue) }
        guard let comparison = RepeatComparison(first: first, repeated: accepted) else { return nil }
        var row = RowBinding(capacity: RepeatTable.columns.count)
        for value in comparison.values { row.append(value) }
        // A repeat already kept (the same side and values) changes no row and counts nothing.
        let kept = try row.run(db.cachedStatement(sql: insertRepeat), in: db) == 1
        return kept && comparison.isConflict ? comparison : nil
    }

    /// Deletes the oldest refusals past the cap. Ids only grow and only the oldest are deleted, so the rows kept
    /// are exactly those within `maximumRows` of the newest id: a range delete on the primary key, no count.
    /// The deleted rows come off their status counters and onto `rejected_dropped`.
    private static func enforce(_ cap: RejectionCap, changes: inout [String: Int], in db: Database) throws {
        let newest = try Int.fetchOne(db, sql: "SELECT max(id) FROM rejected_postbacks") ?? 0
        let boundary = newest - cap.maximumRows
        guard boundary > 0 else { return }
        let doomed = try Row.fetchAll(db, sql: "SELECT status, count(*) FROM rejected_postbacks WHERE id <= ? GROUP BY status",
                                      arguments: [boundary])
        guard !doomed.isEmpty else { return }
        var dropped = 0
        for row in doomed {
            let count: Int = row[1]
            changes[StatCounter.rejectedPrefix + (row[0] as String), default: 0] -= count
            dropped += count
        }
        try db.execute(sql: "DELETE FROM rejected_postbacks WHERE id <= ?", arguments: [boundary])
        changes[StatCounter.rejectedDropped, default: 0] += dropped
    }

    /// The columns of ``insertPostback``, in its order.
    private static func row(_ accepted: AcceptedPostback) -> RowBinding {
        var row = RowBinding(capacity: PostbackTable.columns.count)
        for column in PostbackTable.columns { row.append(column.value(accepted)) }
        return row
    }

    /// A stored row in neutral terms, through the one decoding of ``PostbackTable``'s columns.
    static func storedPostback(_ row: Row) -> StoredPostback {
        StoredPostback { column in ColumnValue(row[column.name] as DatabaseValue) }
    }
}

extension ColumnValue {
    /// A value as SQLite gave it (booleans as 0 or 1).
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .integer(Int64(number))
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob([UInt8](data))
        }
    }

    /// The value to bind.
    var bound: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }
}
