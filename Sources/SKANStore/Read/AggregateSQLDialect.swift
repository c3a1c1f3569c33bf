/// What an engine's SQL for an ``AggregateQuery`` is made of: the statement's shape (select the dimensions, then
/// the value split, then the counts; group by them all; order by the dimensions; the day range as arguments) is
/// the same for every engine and written once in ``statement(for:)``; each dialect supplies its expressions.
public protocol AggregateSQLDialect {
    /// A dimension as an expression of the dialect, over the columns of ``PostbackTable`` (which
    /// a ``PostbackRollup`` keeps under the same names).
    static func expression(_ dimension: AggregateQuery.Dimension, day: AggregateQuery.DayBasis) -> String
    /// How many rows meet `condition` (all of them when `nil`), as an integer: a count of ``AggregateRow``.
    static func count(where condition: String?) -> String
    /// The sum of a column of counts over the rows that meet `condition` (all when `nil`), as an integer of the
    /// type ``count(where:)`` gives, 0 over no rows: a count of ``AggregateRow`` over a ``PostbackRollup``.
    static func total(_ column: String, where condition: String?) -> String
    /// A rollup's ``PostbackRollup/day`` as the day dimension: of the type the arrival day's expression has.
    static var rollupDay: String { get }
    /// The `number`th argument's placeholder (from 1).
    static func placeholder(_ number: Int) -> String
    /// What follows each position of `ORDER BY`, so that absent values sort first on every engine.
    static var orderSuffix: String { get }
    /// The condition on a `postbacks` row that it is stored but not yet counted in `rollup`, for an engine that
    /// folds rows into rollups after their transaction (the file engine); `nil` where every rollup is kept in the transaction
    /// that stores its rows. A query read from a rollup then adds these rows, so it counts every committed postback.
    static func unfoldedPostbacks(_ rollup: PostbackRollup) -> String?
}

extension AggregateSQLDialect {
    public static func unfoldedPostbacks(_ rollup: PostbackRollup) -> String? { nil }

    /// The postbacks not yet folded into `rollup`, each as a rollup row of its own (counts 1 or 0) under the table's
    /// column names, as a subquery named as the table; `nil` where the engine keeps every rollup in the transaction
    /// of its rows.
    public static func unfoldedRows(_ rollup: PostbackRollup) -> String? {
        guard let unfolded = unfoldedPostbacks(rollup) else { return nil }
        let counts = [(PostbackRollup.count, "1")]
            + (rollup.keepsMeasures ? PostbackRollup.measures().map { ($0.name, PostbackRollup.one($0.condition)) } : [])
        return """
            (SELECT \((rollup.key().map { "\($0.value) AS \($0.name)" } + counts.map { "\($0.1) AS \($0.0)" }).joined(separator: ", "))
                FROM \(PostbackTable.name) WHERE \(unfolded)) AS \(rollup.name)
            """
    }

    /// The counts of ``AggregateRow``, in its order, over `postbacks`: every row, then each of
    /// ``PostbackRollup/measures(row:)``, the one definition of what each count counts.
    public static var counts: [String] {
        [count(where: nil)] + PostbackRollup.measures().map { count(where: $0.condition) }
    }

    /// The same counts over a ``PostbackRollup`` whose rows stand for ``PostbackRollup/count`` postbacks each: summed
    /// under the same conditions, or, where the rollup ``PostbackRollup/keepsMeasures``, its kept counts summed.
    public static func counts(over rollup: PostbackRollup) -> [String] {
        if rollup.keepsMeasures { return rollup.counts.map { total($0, where: nil) } }
        return [total(PostbackRollup.count, where: nil)]
            + PostbackRollup.measures().map { total(PostbackRollup.count, where: $0.condition) }
    }

    /// The statement and its arguments. The one place that chooses the table: the smallest per-day rollup that
    /// holds everything the query reads (``PostbackRollup/choose(for:)``, when the query allows it), else every
    /// postback. Both give the same rows in the same order: a rollup keeps the columns under their names and types,
    /// so only the day, the tier and the counts are spelled differently.
    public static func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) {
        let rollup = query.allowsRollups ? PostbackRollup.choose(for: query) : nil
        func column(_ dimension: AggregateQuery.Dimension) -> String {
            switch dimension {
            case .day where rollup != nil: rollupDay
            case .tier where rollup?.keepsTier == true: PostbackRollup.tier
            default: expression(dimension, day: query.day)
            }
        }
        var select = query.dimensions.map(column)
        if query.splitsByValue { select += [PostbackTable.conversionValue.name, PostbackTable.coarseConversionValue.name] }
        let groups = select.isEmpty ? "" : "GROUP BY " + (1...select.count).map(String.init).joined(separator: ", ")
        let order = query.dimensions.isEmpty ? ""
            : "ORDER BY " + (1...query.dimensions.count).map { "\($0)\(orderSuffix)" }.joined(separator: ", ")
        var conditions: [String] = []
        var arguments: [String] = []
        let day = column(.day)
        if let from = query.from { arguments.append(from); conditions.append("\(day) >= \(placeholder(arguments.count))") }
        if let to = query.to { arguments.append(to); conditions.append("\(day) <= \(placeholder(arguments.count))") }
        for filter in query.filters {
            // Compared as text, the form the value has in a group's keys, so that a filter reads like a report cell
            // (`window=0`, `did-win=true`) on every engine; CAST ... AS TEXT is standard SQL.
            let value = column(filter.dimension)
            if let text = filter.value {
                arguments.append(text)
                conditions.append("\(Self.filterExpression(value)) = \(placeholder(arguments.count))")
            } else {
                conditions.append("\(value) IS NULL")
            }
        }
        let sums = rollup.map(counts(over:)) ?? counts
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        guard let rollup, let unfolded = unfoldedRows(rollup) else {
            let sql = """
                SELECT \((select + sums).joined(separator: ", "))
                FROM \(rollup?.name ?? PostbackTable.name)\(filter)
                \(groups) \(order)
                """
            return (sql, arguments)
        }
        // An engine that folds later: the rollup's rows grouped where they are, the rows not yet folded grouped as
        // rollup rows of their own, and the two summed by key. Reading the rollup through a UNION ALL of both, as
        // one subquery, copied each of its rows once more on the way (SQLite's co-routine), about a third of the
        // read over the dashboard benchmark's rollups (Benchmarks/history/2026-11.md, issue 36).
        let keys = select.indices.map { "k\($0)" }
        let totals = sums.indices.map { "c\($0)" }
        let named = zip(select, keys).map { "\($0) AS \($1)" } + zip(sums, totals).map { "\($0) AS \($1)" }
        let part = { (table: String) in "SELECT \(named.joined(separator: ", ")) FROM \(table)\(filter) \(groups)" }
        let sql = """
            SELECT \((keys + totals.map { total($0, where: nil) }).joined(separator: ", "))
            FROM (\(part(rollup.name))
                UNION ALL \(part(unfolded))) AS \(rollup.name)
            \(groups) \(order)
            """
        return (sql, arguments + arguments)
    }

    /// What a filter on `dimension` compares with its text: the engines index it on a rollup with campaigns.
    public static func filterExpression(_ dimension: AggregateQuery.Dimension, day: AggregateQuery.DayBasis) -> String {
        filterExpression(expression(dimension, day: day))
    }

    static func filterExpression(_ value: String) -> String { "CAST(\(value) AS TEXT)" }
}
