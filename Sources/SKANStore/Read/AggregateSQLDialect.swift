/// What an engine's SQL for an ``AggregateQuery`` is made of: the statement's shape (select the dimensions, then
/// the value split, then the counts; group by them all; order by the dimensions; the day range as arguments) is
/// the same for every engine and written once in ``statement(for:)``; each dialect supplies its expressions.
public protocol AggregateSQLDialect {
    /// A dimension as an expression of the dialect.
    static func expression(_ dimension: AggregateQuery.Dimension, day: AggregateQuery.DayBasis) -> String
    /// The counts, in ``AggregateRow``'s order.
    static var counts: [String] { get }
    /// The `number`th argument's placeholder (from 1).
    static func placeholder(_ number: Int) -> String
    /// What follows each position of `ORDER BY`, so that absent values sort first on every engine.
    static var orderSuffix: String { get }
}

extension AggregateSQLDialect {
    /// The statement and its arguments.
    public static func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) {
        var select = query.dimensions.map { expression($0, day: query.day) }
        if query.splitsByValue { select += [PostbackTable.conversionValue.name, PostbackTable.coarseConversionValue.name] }
        let groups = select.isEmpty ? "" : "GROUP BY " + (1...select.count).map(String.init).joined(separator: ", ")
        let order = query.dimensions.isEmpty ? ""
            : "ORDER BY " + (1...query.dimensions.count).map { "\($0)\(orderSuffix)" }.joined(separator: ", ")
        var conditions: [String] = []
        var arguments: [String] = []
        let day = expression(.day, day: query.day)
        if let from = query.from { arguments.append(from); conditions.append("\(day) >= \(placeholder(arguments.count))") }
        if let to = query.to { arguments.append(to); conditions.append("\(day) <= \(placeholder(arguments.count))") }
        for filter in query.filters {
            // Compared as text, the form the value has in a group's keys, so that a filter reads like a report cell
            // (`window=0`, `did-win=true`) on every engine; CAST ... AS TEXT is standard SQL.
            let value = expression(filter.dimension, day: query.day)
            if let text = filter.value {
                arguments.append(text)
                conditions.append("CAST(\(value) AS TEXT) = \(placeholder(arguments.count))")
            } else {
                conditions.append("\(value) IS NULL")
            }
        }
        let sql = """
            SELECT \((select + counts).joined(separator: ", "))
            FROM \(PostbackTable.name)\(conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            \(groups) \(order)
            """
        return (sql, arguments)
    }
}
