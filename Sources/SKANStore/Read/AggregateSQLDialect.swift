/// What an engine's SQL for an ``AggregateQuery`` is made of: the statement's shape (select the dimensions, then
/// the value split, then the counts; group by them all; order by the dimensions; the day range as arguments) is
/// the same for every engine and written once in ``statement(for:)``; each dialect supplies its expressions.
public protocol AggregateSQLDialect {
    /// A dimension as an expression of the dialect, over the columns of ``PostbackTable`` (which
    /// a ``PostbackRollup`` keeps under the same names).
    static func expression(_ dimension: AggregateQuery.Dimension, day: AggregateQuery.DayBasis) -> String
    /// The counts, in ``AggregateRow``'s order.
    static var counts: [String] { get }
    /// The same counts over a ``PostbackRollup``, where a row stands for ``PostbackRollup/count`` postbacks.
    static var rollupCounts: [String] { get }
    /// The sum of a column of counts, as an integer of the type ``counts`` are (a rollup that
    /// ``PostbackRollup/keepsMeasures`` sums its ``PostbackRollup/count`` and ``PostbackRollup/measures(row:)``).
    static func total(_ column: String) -> String
    /// A rollup's ``PostbackRollup/day`` as the day dimension: of the type the arrival day's expression has.
    static var rollupDay: String { get }
    /// The `number`th argument's placeholder (from 1).
    static func placeholder(_ number: Int) -> String
    /// What follows each position of `ORDER BY`, so that absent values sort first on every engine.
    static var orderSuffix: String { get }
}

extension AggregateSQLDialect {
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
        let table = rollup?.name ?? PostbackTable.name
        let sums = switch rollup {
        case .none: counts
        case .some(let rollup) where rollup.keepsMeasures: ([PostbackRollup.count] + PostbackRollup.measures().map(\.name)).map(total)
        case .some: rollupCounts
        }
        let sql = """
            SELECT \((select + sums).joined(separator: ", "))
            FROM \(table)\(conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            \(groups) \(order)
            """
        return (sql, arguments)
    }

    /// What a filter on `dimension` compares with its text: the engines index it on a rollup with campaigns.
    public static func filterExpression(_ dimension: AggregateQuery.Dimension, day: AggregateQuery.DayBasis) -> String {
        filterExpression(expression(dimension, day: day))
    }

    static func filterExpression(_ value: String) -> String { "CAST(\(value) AS TEXT)" }
}
