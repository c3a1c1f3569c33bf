/// The one description of `postback_rollups`: stored postbacks counted per arrival day and per value of the columns
/// the dashboard's panels group and filter by. Each engine keeps it in the transaction that inserts the postbacks
/// (SQLite by a trigger, PostgreSQL in the insert's statement), so it always agrees with the rows committed beside it,
/// and a repeat of a dedup key, which inserts no row, counts nothing.
///
/// The rollup keeps those columns under their own names and types, so a dimension's expression reads the same on
/// either table; ``AggregateSQLDialect/statement(for:)`` answers a query from it when ``covers(_:)`` says it can,
/// else from `postbacks`. A dashboard over millions of postbacks then reads thousands of rows instead.
public enum PostbackRollups {
    /// The table's name.
    public static let name = "postback_rollups"
    /// The arrival day, `YYYY-MM-DD` (UTC): the first ten characters of ``PostbackTable/receivedAt``.
    public static let day = "day"
    /// How many stored postbacks have the row's day and values.
    public static let count = "postback_count"

    /// The columns of ``PostbackTable`` the rollup keeps, after ``day``: enough for the dimensions in
    /// ``dimensions`` and for every count of ``AggregateRow``. Each one multiplies the rollup's rows by the values it
    /// takes within the others, so columns no panel reads (app, version, source app, country) stay out.
    public static let columns: [PostbackColumn] = [
        PostbackTable.framework, PostbackTable.adNetworkID, PostbackTable.campaignID, PostbackTable.sourceIdentifier,
        PostbackTable.conversionType, PostbackTable.redownload, PostbackTable.fidelityType, PostbackTable.didWin,
        PostbackTable.postbackSequenceIndex, PostbackTable.conversionValue, PostbackTable.coarseConversionValue,
    ]

    /// The dimensions whose expressions read only ``columns`` (``AggregateQuery/Dimension/day`` on the arrival
    /// basis only: an install day needs the arrival hour).
    public static let dimensions: Set<AggregateQuery.Dimension> = [
        .network, .campaign, .fidelity, .didWin, .redownload, .window, .tier, .conversionValue, .coarseValue, .day,
        .framework, .conversionType, .interaction,
    ]

    /// Whether `query` can be answered from the rollup: every dimension and filter is one of ``dimensions``, and the
    /// day, when the query uses it (a dimension, a filter or a date range), is the arrival day.
    public static func covers(_ query: AggregateQuery) -> Bool {
        let used = query.dimensions + query.filters.map(\.dimension)
        guard used.allSatisfy(dimensions.contains) else { return false }
        let usesDay = used.contains(.day) || query.from != nil || query.to != nil
        return !usesDay || query.day == .arrival
    }
}
