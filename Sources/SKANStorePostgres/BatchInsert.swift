import PostgresNIO
import SKANStore

/// A batch of accepted postbacks as PostgreSQL parameters: one ``PostgresColumnArray`` per column of
/// ``PostbackTable/columns``, rows in the order of their unique key, and the counter names the batch's rows count
/// under, in the order of their names.
///
/// Why key order: the insert locks each row's key as it goes, in the arrays' order. Two collectors given the same
/// postbacks in different orders each held a key the other was waiting for (`deadlock detected`, 40P01, 7–9 batches
/// in 20,000); in one order, the second waits for the first and then finds its rows there. Callers map what was
/// stored back to their entries by key, so the order of the rows is the batch's own business. Ids still follow
/// arrival, as SQLite's do (exports list rows in id order): the last array is each row's place in the batch, and
/// the insert numbers the rows in that order before storing them in key order (``stored(from:)``).
struct BatchRows: Sendable {
    /// One array per column of ``PostbackTable/columns``, then the rows' places in the batch as it arrived.
    let columns: [PostgresColumnArray]
    /// Each distinct pair of ``PostbackTable/version`` and ``PostbackTable/framework`` in the batch with the counter
    /// its postbacks count under (``AcceptedPostback/statsVersion`` is a function of those two columns): three
    /// arrays, row by row. A stored row finds its counter by these two columns, which it returns, so the counting
    /// joins the stored rows with the batch's few versions rather than with the batch itself, where PostgreSQL,
    /// not knowing an array parameter's length, compared every stored row with every batch row.
    let counters: [PostgresColumnArray]

    /// The rows of `postbacks`, each given with its ``PostbackTable/uniqueKey`` (read once by the caller), sorted
    /// by that key.
    init(_ postbacks: [(key: [ColumnValue], postback: AcceptedPostback)]) {
        let ordered = postbacks.enumerated().sorted { Self.precedes($0.element.key, $1.element.key) }
        var columns = PostbackTable.columns.map { PostgresColumnArray(kind: $0.kind, capacity: postbacks.count) }
        columns.append(PostgresColumnArray(kind: .integer, capacity: postbacks.count))
        var counterNames: [[ColumnValue]: String] = [:]
        for (arrival, (_, postback)) in ordered {
            for (index, column) in PostbackTable.columns.enumerated() { columns[index].append(column.value(postback)) }
            columns[PostbackTable.columns.count].append(.integer(Int64(arrival)))
            let pair = Self.counterColumns.map { $0.value(postback) }
            if counterNames[pair] == nil { counterNames[pair] = StatCounter.postbacksPrefix + postback.statsVersion }
        }
        var counters = Self.counterColumns.map { PostgresColumnArray(kind: $0.kind, capacity: counterNames.count) }
        counters.append(PostgresColumnArray(kind: .text, capacity: counterNames.count))
        for (pair, name) in counterNames.sorted(by: { $0.value != $1.value ? $0.value < $1.value : Self.precedes($0.key, $1.key) }) {
            for (index, value) in pair.enumerated() { counters[index].append(value) }
            counters[Self.counterColumns.count].append(.text(name))
        }
        self.columns = columns
        self.counters = counters
    }

    /// Whether key `a` sorts before key `b`: value by value, NULL first, then integers by value, text by its UTF-8
    /// bytes (not Swift's string order, which holds two spellings of one canonical text equal though PostgreSQL
    /// keeps both as keys), blobs by their bytes. A total order, the same in every collector.
    static func precedes(_ a: [ColumnValue], _ b: [ColumnValue]) -> Bool {
        for (left, right) in zip(a, b) {
            switch (left, right) {
            case (.null, .null): continue
            case (.null, _): return true
            case (_, .null): return false
            case (.integer(let x), .integer(let y)): if x != y { return x < y }
            case (.text(let x), .text(let y)): if !x.utf8.elementsEqual(y.utf8) { return x.utf8.lexicographicallyPrecedes(y.utf8) }
            case (.blob(let x), .blob(let y)): if x != y { return x.lexicographicallyPrecedes(y) }
            // A column holds one kind; kinds apart are ordered by kind, to stay total.
            default: return Self.rank(left) < Self.rank(right)
            }
        }
        return a.count < b.count
    }

    private static func rank(_ value: ColumnValue) -> Int {
        switch value {
        case .null: 0
        case .integer: 1
        case .text: 2
        case .blob: 3
        }
    }

    /// The columns a stored postback's counter name follows from.
    static let counterColumns = [PostbackTable.version, PostbackTable.framework]

    /// `unnest` of the column arrays bound from parameter `first` on, as rows of ``PostbackTable/columns`` and the
    /// row's `arrival`, with its `place` in the arrays (key order).
    static func unnest(from first: Int) -> String {
        var arrays = PostbackTable.columns.enumerated().map { "$\(first + $0.offset)::\(PostgresSchema.type(of: $0.element.kind))[]" }
        arrays.append("$\(first + PostbackTable.columns.count)::bigint[]")
        let names = PostbackTable.columns.map(\.name) + ["arrival", "place"]
        return "unnest(" + arrays.joined(separator: ", ") + ") WITH ORDINALITY AS batch (" + names.joined(separator: ", ") + ")"
    }

    /// The CTEs `numbered` and `stored`: the batch's rows given ids in arrival order, then inserted in key order
    /// (the arrays' order); `stored` is what the insert stored (``returned``), a row whose key was there skipped.
    /// The id sequence is drawn as the identity column's default would draw it, one number per row, used or not.
    static func stored(from first: Int) -> String {
        let names = PostbackTable.columns.map(\.name).joined(separator: ", ")
        return """
            numbered AS MATERIALIZED (
                SELECT nextval((SELECT pg_get_serial_sequence('\(PostbackTable.name)', '\(PostbackTable.id)'))::regclass) AS id, batch.*
                FROM (SELECT * FROM \(unnest(from: first)) ORDER BY arrival) AS batch),
            stored AS (
                INSERT INTO \(PostbackTable.name) (\(PostbackTable.id), \(names)) OVERRIDING SYSTEM VALUE
                SELECT id, \(names) FROM numbered ORDER BY place
                ON CONFLICT DO NOTHING RETURNING \(returned.joined(separator: ", ")))
            """
    }

    /// `unnest` of ``counters`` bound from parameter `first` on, as a table `counter` of the ``counterColumns`` and
    /// `name`.
    static func counterTable(from first: Int) -> String {
        let types = counterColumns.map { PostgresSchema.type(of: $0.kind) } + ["text"]
        let arrays = types.enumerated().map { "$\(first + $0.offset)::\($0.element)[]" }
        return "unnest(" + arrays.joined(separator: ", ") + ") AS counter (" + (counterColumns.map(\.name) + ["name"]).joined(separator: ", ") + ")"
    }

    /// What an insert returns of each row it stored: the unique key, the ``counterColumns``, and what ``rollupInserts``
    /// count.
    static let returned: [String] = {
        var names = PostbackTable.uniqueKey.map(\.name)
        let kept = counterColumns.map(\.name) + PostbackRollup.all.flatMap(\.columns).map(\.name)
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
/// postbacks it stored. The insert returns what it stored; a second insert in the same statement adds their count per
/// counter name (found by ``BatchRows/counterColumns``) and the batch's duplicates (`entries`, every accepted entry of
/// the batch with its repeats of its own keys, less the rows stored), and the last add them to every
/// ``PostbackRollup``. Returns the unique key of each row stored.
///
/// Prepared once per connection (its text never changes with the batch).
struct CountingBatchInsert: PostgresPreparedStatement {
    typealias Row = [ColumnValue]

    let collector: String
    let entries: Int
    let rows: BatchRows

    static let sql: String = {
        let key = PostbackTable.uniqueKey.map(\.name)
        let match = BatchRows.counterColumns.map { "stored.\($0.name) IS NOT DISTINCT FROM counter.\($0.name)" }
        return """
            WITH \(BatchRows.stored(from: 3)),
            counted AS (
                INSERT INTO stat_counters (collector, name, value)
                SELECT $1, counter.name, count(*)
                FROM stored JOIN \(BatchRows.counterTable(from: 3 + PostbackTable.columns.count + 1)) ON \(match.joined(separator: " AND "))
                GROUP BY counter.name
                UNION ALL
                SELECT $1, '\(StatCounter.duplicates)', duplicates FROM (
                    SELECT $2::bigint - (SELECT count(*) FROM stored) AS duplicates) AS d
                WHERE duplicates > 0
                ORDER BY 2
                ON CONFLICT (collector, name) DO UPDATE SET value = stat_counters.value + excluded.value),
            \(BatchRows.rollupInserts)
            SELECT \(key.joined(separator: ", ")) FROM stored
            """
    }()

    func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: rows.columns.count + rows.counters.count + 2)
        binds.append(collector)
        binds.append(Int64(entries))
        for column in rows.columns { binds.append(column) }
        for column in rows.counters { binds.append(column) }
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
        WITH \(BatchRows.stored(from: 2)),
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
