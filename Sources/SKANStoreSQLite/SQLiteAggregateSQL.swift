import SKANStore

/// ``AggregateQuery`` in SQLite's dialect, over the columns of ``PostbackTable``.
enum SQLiteAggregateSQL: AggregateSQLDialect {
    static func placeholder(_ number: Int) -> String { "?" }

    /// The writer folds postbacks into the rollups many at a time (``SQLiteRollupFold``).
    static func unfoldedPostbacks(_ rollup: PostbackRollup) -> String? { SQLiteRollupFold.unfolded(rollup) }

    /// SQLite sorts NULL first already.
    static let orderSuffix = ""

    /// `SUM` of the condition's 0 or 1 (a NULL adds nothing); `COALESCE` because `SUM` over no rows is NULL.
    static func count(where condition: String?) -> String {
        condition.map { "COALESCE(SUM(\($0)), 0)" } ?? "COUNT(*)"
    }

    static func total(_ column: String, where condition: String?) -> String {
        "COALESCE(SUM(\(condition.map { "CASE WHEN \($0) THEN \(column) ELSE 0 END" } ?? column)), 0)"
    }

    /// The rollup's day column holds what the arrival day's expression gives.
    static let rollupDay = PostbackRollup.day

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
