/// A per-day rollup of `postbacks`: stored postbacks counted per arrival day and per value of some of their columns.
/// Each engine keeps every rollup in ``all`` agreeing with the committed rows (a server engine in the insert's
/// statement; a file engine folds rows in after their transaction, and reads add the rows not yet folded), and a
/// repeat of a dedup key, which inserts no row, counts nothing.
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
    /// Whether each row keeps the counts of ``AggregateRow`` (``measures``) beside ``count``, rather than the columns
    /// those counts are decided by: a rollup that cannot split by window, value or winner, so much smaller.
    public let keepsMeasures: Bool
    /// The dimensions it can group and filter by.
    public let dimensions: Set<AggregateQuery.Dimension>

    /// The arrival day column, `YYYY-MM-DD` (UTC): the first ten characters of ``PostbackTable/receivedAt``.
    public static let day = "day"
    /// The column of ``AggregateQuery/Dimension/tier`` in a rollup that ``keepsTier``: `length(source_identifier)`.
    public static let tier = "source_identifier_digits"
    /// How many stored postbacks have the row's day and values.
    public static let count = "postback_count"

    /// What each count of ``AggregateRow`` after the postbacks counts, in its order: the condition on a `postbacks`
    /// row (columns written `row` + name), and the name a rollup that ``keepsMeasures`` keeps the count under. The one
    /// definition of an install, a redownload and the rest: every engine's reports (``AggregateSQLDialect/counts``),
    /// rollups, triggers and backfills read these, written so that an engine with booleans as 0 and 1 and one
    /// with booleans read them alike.
    public static func measures(row: String = "") -> [(name: String, condition: String)] {
        // A winning first postback: did-win true or absent (before 3.0), window 0 or absent.
        let firstWinning = "(\(row)did_win IS NULL OR \(row)did_win) AND COALESCE(\(row)postback_sequence_index, 0) = 0"
        // A download or a redownload: SKAdNetwork postbacks have no conversion type or one of those two.
        let notReengagement = "COALESCE(\(row)conversion_type, '') <> 're-engagement'"
        return [
            ("install_count", "\(firstWinning) AND \(notReengagement)"),
            ("redownload_count", "\(firstWinning) AND \(row)redownload"),
            ("reengagement_count", "\(firstWinning) AND NOT \(notReengagement)"),
            ("non_winning_count", "NOT \(row)did_win"),
            ("null_value_count", "\(row)conversion_value IS NULL AND \(row)coarse_conversion_value IS NULL"),
        ]
    }

    /// The columns ``measures(row:)`` read: what an engine must have at hand to count a row.
    public static let measuredColumns = [
        PostbackTable.didWin, PostbackTable.postbackSequenceIndex, PostbackTable.conversionType, PostbackTable.redownload,
        PostbackTable.conversionValue, PostbackTable.coarseConversionValue,
    ]

    /// The columns of counts a row keeps: ``count``, and the ``measures(row:)`` when it ``keepsMeasures``.
    public var counts: [String] { [Self.count] + (keepsMeasures ? Self.measures().map(\.name) : []) }

    /// A measure's value for one `postbacks` row: 1 when it counts, else 0.
    public static func one(_ condition: String) -> String { "CASE WHEN \(condition) THEN 1 ELSE 0 END" }

    /// The aggregates over `postbacks` rows that fill ``counts``, in its order: what a backfill and an engine's
    /// batch upsert group a rollup's rows by.
    public var countAggregates: [String] {
        ["count(*)"] + (keepsMeasures ? Self.measures().map { "sum(\(Self.one($0.condition)))" } : [])
    }

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
        keepsTier: true, keepsMeasures: false,
        dimensions: [.network, .fidelity, .didWin, .redownload, .window, .tier, .conversionValue, .coarseValue, .day,
                     .framework, .conversionType, .interaction])

    /// Campaigns (and source identifiers) per day with their counts: what the overview's installs by campaign and a
    /// report by campaign and day read. A row per day and campaign, where ``withCampaigns`` has one for every
    /// network, window, value and winner beside them. Not by network: over the dashboard benchmark's 10,000,000
    /// postbacks, whose 3,870 source identifiers each appear under all 8 networks, that made 802,411 rows and 0.6 s
    /// to read whole, against 3,256,051 rows and 2.6 s; a view of one network stacked by campaign reads
    /// ``withCampaigns``.
    public static let campaignDays = PostbackRollup(
        name: "postback_rollups_by_campaign_day",
        columns: [PostbackTable.framework, PostbackTable.campaignID, PostbackTable.sourceIdentifier],
        keepsTier: false, keepsMeasures: true,
        dimensions: [.day, .campaign, .framework])

    /// The same with the campaign number and the source identifier: for a view of one campaign, or by campaign.
    public static let withCampaigns = PostbackRollup(
        name: "postback_rollups",
        columns: [
            PostbackTable.framework, PostbackTable.adNetworkID, PostbackTable.campaignID, PostbackTable.sourceIdentifier,
            PostbackTable.conversionType, PostbackTable.redownload, PostbackTable.fidelityType, PostbackTable.didWin,
            PostbackTable.postbackSequenceIndex, PostbackTable.conversionValue, PostbackTable.coarseConversionValue,
        ],
        keepsTier: false, keepsMeasures: false,
        dimensions: withoutCampaigns.dimensions.union([.campaign]))

    /// The rollups of the first migration that made them (the engines' migrations 0006 and 0005), which later migrations add to.
    public static let first = [withoutCampaigns, withCampaigns]

    /// Every rollup the engines keep, smallest first: the order ``choose(for:)`` tries them in.
    public static let all = [withoutCampaigns, campaignDays, withCampaigns]

    /// The smallest rollup that covers `query`, or `nil` when only the postbacks can answer it.
    public static func choose(for query: AggregateQuery) -> PostbackRollup? {
        all.first { $0.covers(query) }
    }

    /// Whether this rollup can answer `query`: every dimension and filter is one of ``dimensions``, and the day, when
    /// the query uses it (a dimension, a filter or a date range), is the arrival day (an install day needs the hour).
    public func covers(_ query: AggregateQuery) -> Bool {
        let used = query.dimensions + query.filters.map(\.dimension)
        guard used.allSatisfy(dimensions.contains), !(keepsMeasures && query.splitsByValue) else { return false }
        let usesDay = used.contains(.day) || query.from != nil || query.to != nil
        return !usesDay || query.day == .arrival
    }

    /// The key: each column's name, its kind, whether it may be absent, and its value as an expression over a
    /// `postbacks` row whose columns are written `row` + name (`NEW.` in a trigger, empty in a SELECT).
    public func key(row: String = "") -> [(name: String, kind: PostbackColumn.Kind, isNullable: Bool, value: String)] {
        var key: [(name: String, kind: PostbackColumn.Kind, isNullable: Bool, value: String)] = [
            (Self.day, .text, false, "substr(\(row)\(PostbackTable.receivedAt.name), 1, 10)"),
        ]
        key += columns.map { ($0.name, $0.kind, $0.isNullable, row + $0.name) }
        if keepsTier { key.append((Self.tier, .integer, true, "length(\(row)\(PostbackTable.sourceIdentifier.name))")) }
        return key
    }

    /// The statement that counts the postbacks stored before the rollup existed, in plain SQL every engine runs;
    /// `extra` adds columns an engine keeps beside the key (name and constant value, e.g. a server engine's collector).
    public func backfill(extra: [(name: String, value: String)] = []) -> String {
        let key = key()
        return """
            INSERT INTO \(name) (\((key.map(\.name) + extra.map(\.name) + counts).joined(separator: ", ")))
                SELECT \((key.map(\.value) + extra.map(\.value) + countAggregates).joined(separator: ", ")) FROM \(PostbackTable.name)
                GROUP BY \((1...key.count).map(String.init).joined(separator: ", "))
            """
    }
}
