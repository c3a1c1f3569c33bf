import PostgresNIO
import SKANStore

/// A batch of accepted postbacks as PostgreSQL parameters: one ``PostgresColumnArray`` per column of
/// ``PostbackTable/columns``, and the counter each postback adds to, row by row in the same order.
struct BatchRows: Sendable {
    let columns: [PostgresColumnArray]
    let counterNames: PostgresColumnArray

    init(_ postbacks: [AcceptedPostback]) {
        var columns = PostbackTable.columns.map { PostgresColumnArray(kind: $0.kind, capacity: postbacks.count) }
        var counterNames = PostgresColumnArray(kind: .text, capacity: postbacks.count)
        for postback in postbacks {
            for (index, column) in PostbackTable.columns.enumerated() { columns[index].append(column.value(postback)) }
            counterNames.append(StatCounter.postbacksPrefix + postback.statsVersion)
        }
        self.columns = columns
        self.counterNames = counterNames
    }

    /// `unnest` of the column arrays bound from parameter `first` on, as rows of ``PostbackTable/columns``.
    static func unnest(from first: Int, counterNames: Bool) -> String {
        var arrays = PostbackTable.columns.enumerated().map { "$\(first + $0.offset)::\(PostgresSchema.type(of: $0.element.kind))[]" }
        if counterNames { arrays.append("$\(first + PostbackTable.columns.count)::text[]") }
        return "unnest(" + arrays.joined(separator: ", ") + ")"
    }

    /// What an insert returns of each row it stored: the unique key, and what ``rollupInserts`` count.
    static let returned: [String] = {
        var names = PostbackTable.uniqueKey.map(\.name)
        let kept = PostbackRollup.all.flatMap(\.columns).map(\.name)
        for name in [PostbackTable.receivedAt.name, PostbackTable.sourceIdentifier.name] + kept where !names.contains(name) {
            names.append(name)
        }
        return names
    }()

    /// The CTEs that add the rows of `stored` (an insert's `RETURNING` ``returned``) to this collector's (`$1`) rows of
    /// every ``PostbackRollup``, one row per day and key: several collectors write at once, and rows of their own keep
    /// them from waiting on each other's locks. Sorted, so that two statements lock shared rows in one order.
    static let rollupInserts: String = PostbackRollup.all.enumerated().map { index, rollup in
        let key = rollup.key()
        let groups = (1...key.count).map(String.init).joined(separator: ", ")
        return """
            rolled\(index) AS (
                INSERT INTO \(rollup.name) (\(key.map(\.name).joined(separator: ", ")), collector, \(rollup.counts.joined(separator: ", ")))
                SELECT \(key.map(\.value).joined(separator: ", ")), $1, \(rollup.countAggregates.joined(separator: ", ")) FROM stored
                GROUP BY \(groups) ORDER BY \(groups)
                ON CONFLICT ON CONSTRAINT \(PostgresSchema.rollupKey(rollup))
                DO UPDATE SET \(PostgresSchema.added(rollup)))
            """
    }.joined(separator: ",\n")

    /// The unique key of a row the insert returned.
    static func storedKey(_ row: PostgresRow) -> [ColumnValue] {
        let cells = row.makeRandomAccess()
        return PostbackTable.uniqueKey.enumerated().map { column in
            PostgresCells.value(cells[column.offset], kind: column.element.kind)
        }
    }
}

/// The usual batch's one statement: the insert of `postbacks`, this collector's counters and its rollup rows for the
/// postbacks it stored. The rows carry each postback's counter name, the insert returns what it stored, a second
/// insert in the same statement adds their count per name (and the batch's duplicates: `repeats`, its repeats of its
/// own keys left out of the rows, with the rows the database already had), and the last add them to every
/// ``PostbackRollup``. Returns the unique key of each row stored.
///
/// Prepared once per connection (its text never changes with the batch), and run in PostgreSQL's implicit transaction.
struct CountingBatchInsert: PostgresPreparedStatement {
    typealias Row = [ColumnValue]

    let collector: String
    let repeats: Int
    let rows: BatchRows

    static let sql: String = {
        let names = PostbackTable.columns.map(\.name).joined(separator: ", ")
        let key = PostbackTable.uniqueKey.map(\.name)
        let join = key.map { "stored.\($0) IS NOT DISTINCT FROM batch.\($0)" }.joined(separator: " AND ")
        return """
            WITH batch (\(names), skan_counter) AS (SELECT * FROM \(BatchRows.unnest(from: 3, counterNames: true))),
            stored AS (
                INSERT INTO \(PostbackTable.name) (\(names)) SELECT \(names) FROM batch
                ON CONFLICT DO NOTHING RETURNING \(BatchRows.returned.joined(separator: ", "))),
            counted AS (
                INSERT INTO stat_counters (collector, name, value)
                SELECT $1, batch.skan_counter, count(*) FROM stored JOIN batch ON \(join) GROUP BY batch.skan_counter
                UNION ALL
                SELECT $1, '\(StatCounter.duplicates)', duplicates FROM (
                    SELECT $2::bigint + (SELECT count(*) FROM batch) - (SELECT count(*) FROM stored) AS duplicates) AS d
                WHERE duplicates > 0
                ON CONFLICT (collector, name) DO UPDATE SET value = stat_counters.value + excluded.value),
            \(BatchRows.rollupInserts)
            SELECT \(key.joined(separator: ", ")) FROM stored
            """
    }()

    func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: rows.columns.count + 3)
        binds.append(collector)
        binds.append(Int64(repeats))
        for column in rows.columns { binds.append(column) }
        binds.append(rows.counterNames)
        return binds
    }

    func decodeRow(_ row: PostgresRow) -> [ColumnValue] { BatchRows.storedKey(row) }
}

/// The insert of `postbacks` inside a transaction that also stores refusals (the writer then adds the counters
/// itself): a row whose key is already there, from any collector, is skipped and not returned. The rows it stored
/// are added to this collector's rollup rows in the same statement. Returns the unique key of each row stored.
struct BatchInsert: PostgresPreparedStatement {
    typealias Row = [ColumnValue]

    let collector: String
    let rows: BatchRows

    static let sql: String = """
        WITH stored AS (
            INSERT INTO \(PostbackTable.name) (\(PostbackTable.columns.map(\.name).joined(separator: ", ")))
            SELECT * FROM \(BatchRows.unnest(from: 2, counterNames: false))
            ON CONFLICT DO NOTHING RETURNING \(BatchRows.returned.joined(separator: ", "))),
        \(BatchRows.rollupInserts)
        SELECT \(PostbackTable.uniqueKey.map(\.name).joined(separator: ", ")) FROM stored
        """

    func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: rows.columns.count + 1)
        binds.append(collector)
        for column in rows.columns { binds.append(column) }
        return binds
    }

    func decodeRow(_ row: PostgresRow) -> [ColumnValue] { BatchRows.storedKey(row) }
}
