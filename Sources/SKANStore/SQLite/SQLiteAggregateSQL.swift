/// ``AggregateQuery`` in SQLite's dialect, over the columns of ``PostbackTable``.
enum SQLiteAggregateSQL: AggregateSQLDialect {
    static func placeholder(_ number: Int) -> String { "?" }

    /// SQLite sorts NULL first already.
    static let orderSuffix = ""

    /// Counts as integers (`SUM` of 0/1; `COALESCE` because `SUM` over no rows is NULL), in ``AggregateRow``'s
    /// order.
    static let counts = [
        "COUNT(*)",
        "COALESCE(SUM(COALESCE(did_win, 1) = 1 AND COALESCE(postback_sequence_index, 0) = 0 AND \(notReengagement)), 0)",
        "COALESCE(SUM(COALESCE(did_win, 1) = 1 AND COALESCE(postback_sequence_index, 0) = 0 AND redownload = 1), 0)",
        "COALESCE(SUM(COALESCE(did_win, 1) = 1 AND COALESCE(postback_sequence_index, 0) = 0 AND NOT \(notReengagement)), 0)",
        "COALESCE(SUM(did_win = 0), 0)",
        "COALESCE(SUM(conversion_value IS NULL AND coarse_conversion_value IS NULL), 0)",
    ]

    /// The counts over ``PostbackRollup``: the same conditions, each row weighing its count.
    static let rollupCounts = [
        "COALESCE(SUM(\(PostbackRollup.count)), 0)",
        rollupSum("COALESCE(did_win, 1) = 1 AND COALESCE(postback_sequence_index, 0) = 0 AND \(notReengagement)"),
        rollupSum("COALESCE(did_win, 1) = 1 AND COALESCE(postback_sequence_index, 0) = 0 AND redownload = 1"),
        rollupSum("COALESCE(did_win, 1) = 1 AND COALESCE(postback_sequence_index, 0) = 0 AND NOT \(notReengagement)"),
        rollupSum("did_win = 0"),
        rollupSum("conversion_value IS NULL AND coarse_conversion_value IS NULL"),
    ]

    static func total(_ column: String) -> String { "COALESCE(SUM(\(column)), 0)" }

    /// The rollup's day column holds what the arrival day's expression gives.
    static let rollupDay = PostbackRollup.day

    static func rollupSum(_ condition: String) -> String {
        "COALESCE(SUM(CASE WHEN \(condition) THEN \(PostbackRollup.count) ELSE 0 END), 0)"
    }

    /// True for a download or a redownload: SKAdNetwork postbacks have no conversion type or one of those two.
    static let notReengagement = "COALESCE(conversion_type, '') <> 're-engagement'"

    /// A dimension as an SQL expression; booleans come out as `true`/`false` text.
    static func expression(_ dimension: AggregateQuery.Dimension, day: AggregateQuery.DayBasis) -> String {
        switch dimension {
        case .network: "ad_network_id"
        case .app: "app_id"
        case .campaign: "COALESCE(CAST(campaign_id AS TEXT), source_identifier)"
        case .source: "COALESCE(CAST(source_app_id AS TEXT), source_domain)"
        case .version: "version"
        case .fidelity: "fidelity_type"
        case .didWin: "CASE did_win WHEN 1 THEN 'true' WHEN 0 THEN 'false' END"
        case .redownload: "CASE redownload WHEN 1 THEN 'true' WHEN 0 THEN 'false' END"
        case .window: "postback_sequence_index"
        case .tier: "length(source_identifier)"
        case .conversionValue: "conversion_value"
        case .coarseValue: "coarse_conversion_value"
        case .framework: "framework"
        case .conversionType: "conversion_type"
        case .interaction: "CASE fidelity_type WHEN 1 THEN 'click' WHEN 0 THEN 'view' END"
        case .country: "country_code"
        case .marketplace: "marketplace_identifier"
        case .day:
            switch day {
            case .arrival:
                "substr(received_at, 1, 10)"
            case .install:
                """
                date(received_at, CASE WHEN version = '4.0' OR framework = 'adattributionkit' THEN CASE COALESCE(postback_sequence_index, 0) \
                WHEN 0 THEN '-84 hours' WHEN 1 THEN '-252 hours' ELSE '-924 hours' END ELSE '-36 hours' END)
                """
            }
        }
    }
}
