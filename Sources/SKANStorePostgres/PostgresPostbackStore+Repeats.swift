import Logging
import PostgresNIO
import SKANCore
import SKANStore

extension PostgresPostbackStore {
    /// Keeps the repeats among a batch's duplicates (``RepeatComparison``) in ``RepeatTable``, inside the batch's
    /// transaction: one read of the stored rows they repeat, one insert of the rows to keep, and this collector's
    /// `conflicts` counter. Runs only for a batch with duplicates, so a batch of new postbacks pays nothing. The
    /// stored rows are read after the batch's insert, so a repeat of a row stored earlier in the same batch finds it.
    static func keepRepeats(of entries: [StoreEntry], _ outcomes: [StoreOutcome], collector: String,
                            connection: PostgresConnection, logger: Logger) async throws {
        let duplicates = Self.duplicates(entries, outcomes)
        guard !duplicates.isEmpty else { return }
        let key = PostbackTable.uniqueKey
        var keys = key.map { PostgresColumnArray(kind: $0.kind, capacity: duplicates.count) }
        for (postback, _) in duplicates {
            for (index, column) in key.enumerated() { keys[index].append(column.value(postback)) }
        }
        var binds = PostgresBindings(capacity: keys.count)
        for array in keys { binds.append(array) }
        let names = key.map(\.name).joined(separator: ", ")
        let arrays = key.enumerated().map { "$\($0.offset + 1)::\(PostgresSchema.type(of: $0.element.kind))[]" }
        let read = PostgresQuery(unsafeSQL: """
            SELECT \(names), \(RepeatTable.firstColumns.map(\.name).joined(separator: ", ")) FROM \(PostbackTable.name)
            WHERE (\(names)) IN (SELECT * FROM unnest(\(arrays.joined(separator: ", "))))
            """, binds: binds)
        var firsts: [[ColumnValue]: [ColumnValue]] = [:]
        for try await row in try await connection.query(read, logger: logger) {
            let cells = row.makeRandomAccess()
            let rowKey = key.enumerated().map { PostgresCells.value(cells[$0.offset], kind: $0.element.kind) }
            firsts[rowKey] = RepeatTable.firstColumns.enumerated().map {
                PostgresCells.value(cells[key.count + $0.offset], kind: $0.element.kind)
            }
        }
        var kept: [RepeatComparison] = []
        for (postback, _) in duplicates {
            guard let first = firsts[key.map { $0.value(postback) }] else { continue }
            guard let comparison = RepeatComparison(first: first, repeated: postback) else { continue }
            kept.append(comparison)
        }
        guard !kept.isEmpty else { return }
        var columns = RepeatTable.columns.map { PostgresColumnArray(kind: $0.kind, capacity: kept.count) }
        for comparison in kept {
            for (index, value) in comparison.values.enumerated() { columns[index].append(value) }
        }
        var rows = PostgresBindings(capacity: columns.count)
        for array in columns { rows.append(array) }
        let typed = RepeatTable.columns.enumerated().map { "$\($0.offset + 1)::\(PostgresSchema.type(of: $0.element.kind))[]" }
        // A repeat already kept (the same side and values, by any collector) is skipped and counts nothing.
        let inserted = try await connection.query(PostgresQuery(unsafeSQL: """
            INSERT INTO \(RepeatTable.name) (\(RepeatTable.columns.map(\.name).joined(separator: ", ")))
            SELECT * FROM unnest(\(typed.joined(separator: ", ")))
            ON CONFLICT DO NOTHING RETURNING differing
            """, binds: rows), logger: logger)
        var conflicts: [String: Int] = [:]
        for try await differing in inserted.decode(String.self) where !differing.isEmpty {
            let fields = differing.split(separator: ",").map(String.init)
            for name in StatCounter.conflictCounters(fields) { conflicts[name, default: 0] += 1 }
        }
        if let counters = addToCounters(conflicts, collector: collector) {
            try await connection.query(counters, logger: logger)
        }
    }

    /// The accepted entries a batch's outcomes call duplicates, in order, with their places in the batch.
    static func duplicates(_ entries: [StoreEntry], _ outcomes: [StoreOutcome]) -> [(AcceptedPostback, Int)] {
        zip(entries, outcomes).enumerated().compactMap { index, pair in
            guard case .accepted(let postback) = pair.0, pair.1 == .duplicate else { return nil }
            return (postback, index)
        }
    }

    /// `postback_repeats` as ``RepeatTable`` describes it, without the columns later migrations add.
    static var createRepeats: String {
        let columns = RepeatTable.firstMigrationColumns.map { "\($0.name) \(PostgresSchema.type(of: $0.kind))\($0.isNullable ? "" : " NOT NULL")" }
        return """
            CREATE TABLE \(RepeatTable.name) (
                \(PostbackTable.id) bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                \(columns.joined(separator: ",\n    ")),
                UNIQUE (\(RepeatTable.uniqueKey.joined(separator: ", ")))
            )
            """
    }

    /// Migration 0011-integrity: the columns ``RepeatTable/addedColumns``, and the conflicts kept before counted by
    /// value that differed, into the rows no running collector owns.
    static var integrityMigration: [String] {
        RepeatTable.addedColumns.map { column in
            let kind = RepeatTable.columns.first { $0.name == column }!.kind
            return "ALTER TABLE \(RepeatTable.name) ADD COLUMN \(column) \(PostgresSchema.type(of: kind))"
        } + ["""
            INSERT INTO stat_counters (collector, name, value)
            SELECT '\(PostgresSchema.sharedCollector)', counted.* FROM (\(RepeatTable.conflictsByFieldBackfill)) AS counted
            ON CONFLICT (collector, name) DO UPDATE SET value = stat_counters.value + excluded.value
            """]
    }
}
