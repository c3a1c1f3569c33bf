/// A per-day rollup of `postbacks`: stored postbacks counted per arrival day and per value of some of their columns.
/// Each engine keeps every rollup in ``all`` in the transaction that inserts the postbacks (SQLite by a trigger,
/// PostgreSQL in the insert's statement), so they always agree with the rows committed beside them, and a repeat of a
/// dedup key, which inserts no row, counts nothing.
///
/// A rollup keeps its columns under their names and types in `postbacks`, so a dimension's expression reads the same
/// on either table; ``AggregateSQLDialect/statement(for:)`` answers a query from the smallest rollup that
/// ``covers(_:)`` it, else from `postbacks`. Its size, not the table's, is what a query then costs: each column
/// multiplies its rows by the values that column takes beside the others, which is why there are two.
public struct PostbackRollup: Sendable {
    /// The table's name.
    public let name: String
    /// The columns of ``PostbackTable`` it keeps as they are, after ``day``.
    public let columns: [PostbackColumn]
    /// Whether it keeps ``tier`` (the digits of the source identifier) instead of the identifier itself.
    public let keepsTier: Bool
    /// The dimensions it can group and filter by.
    public let dimensions: Set<AggregateQuery.Dimension>

    /// The arrival day column, `YYYY-MM-DD` (UTC): the first ten characters of ``PostbackTable/receivedAt``.
    public static let day = "day"
    /// The column of ``AggregateQuery/Dimension/tier`` in a rollup that ``keepsTier``: `length(source_identifier)`.
    public static let tier = "source_identifier_digits"
    /// How many stored postbacks have the row's day and values.
    public static let count = "postback_count"

    /// What every count of ``AggregateRow`` reads, and the dimensions the dashboard groups by, but not the campaign:
    /// tens of thousands of rows a month where campaigns and source identifiers multiply it by thousands. The
    /// dashboard's pages without a campaign filter read it.
    public static let withoutCampaigns = PostbackRollup(
        name: "postback_rollups_by_tier",
        columns: [
            PostbackTable.framework, PostbackTable.adNetworkID, PostbackTable.conversionType, PostbackTable.redownload,
            PostbackTable.fidelityType, PostbackTable.didWin, PostbackTable.postbackSequenceIndex,
            PostbackTable.conversionValue, PostbackTable.coarseConversionValue,
        ],
        keepsTier: true,
        dimensions: [.network, .fidelity, .didWin, .redownload, .window, .tier, .conversionValue, .coarseValue, .day,
                     .framework, .conversionType, .interaction])

    /// The same with the campaign number and the source identifier: for a view of one campaign, or by campaign.
    public static let withCampaigns = PostbackRollup(
        name: "postback_rollups",
        columns: [
            PostbackTable.framework, PostbackTable.adNetworkID, PostbackTable.campaignID, PostbackTable.sourceIdentifier,
            PostbackTable.conversionType, PostbackTable.redownload, PostbackTable.fidelityType, PostbackTable.didWin,
            PostbackTable.postbackSequenceIndex, PostbackTable.conversionValue, PostbackTable.coarseConversionValue,
        ],
        keepsTier: false,
        dimensions: withoutCampaigns.dimensions.union([.campaign]))

    /// Every rollup the engines keep, smallest first: the order ``choose(for:)`` tries them in.
    public static let all = [withoutCampaigns, withCampaigns]

    /// The smallest rollup that covers `query`, or `nil` when only the postbacks can answer it.
    public static func choose(for query: AggregateQuery) -> PostbackRollup? {
        all.first { $0.covers(query) }
    }

    /// Whether this rollup can answer `query`: every dimension and filter is one of ``dimensions``, and the day, when
    /// the query uses it (a dimension, a filter or a date range), is the arrival day (an install day needs the hour).
    public func covers(_ query: AggregateQuery) -> Bool {
        let used = query.dimensions + query.filters.map(\.dimension)
        guard used.allSatisfy(dimensions.contains) else { return false }
        let usesDay = used.contains(.day) || query.from != nil || query.to != nil
        return !usesDay || query.day == .arrival
    }

    /// The key: each column's name, its kind, whether it may be absent, and its value as an expression over a
    /// `postbacks` row whose columns are written `row` + name (`NEW.` in a SQLite trigger, empty in a SELECT).
    public func key(row: String = "") -> [(name: String, kind: PostbackColumn.Kind, isNullable: Bool, value: String)] {
        var key: [(name: String, kind: PostbackColumn.Kind, isNullable: Bool, value: String)] = [
            (Self.day, .text, false, "substr(\(row)\(PostbackTable.receivedAt.name), 1, 10)"),
        ]
        key += columns.map { ($0.name, $0.kind, $0.isNullable, row + $0.name) }
        if keepsTier { key.append((Self.tier, .integer, true, "length(\(row)\(PostbackTable.sourceIdentifier.name))")) }
        return key
    }

    /// The statement that counts the postbacks stored before the rollup existed, in plain SQL every engine runs;
    /// `extra` adds columns an engine keeps beside the key (name and constant value, e.g. PostgreSQL's collector).
    public func backfill(extra: [(name: String, value: String)] = []) -> String {
        let key = key()
        return """
            INSERT INTO \(name) (\((key.map(\.name) + extra.map(\.name)).joined(separator: ", ")), \(Self.count))
                SELECT \((key.map(\.value) + extra.map(\.value)).joined(separator: ", ")), count(*) FROM \(PostbackTable.name)
                GROUP BY \((1...key.count).map(String.init).joined(separator: ", "))
            """
    }
}
