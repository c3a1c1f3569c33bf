import SKANStore

/// ``AggregateQuery`` in PostgreSQL's dialect, giving the rows ``SQLitePostbackReader`` gives for the same
/// postbacks in the same order: text sorts by bytes (`COLLATE "C"`, SQLite's `BINARY`), absent values first
/// (SQLite's order), numbers as numbers, and booleans come out as `true`/`false` text.
enum PostgresAggregateSQL: AggregateSQLDialect {
    static func placeholder(_ number: Int) -> String { "$\(number)" }

    /// PostgreSQL sorts NULL last unless told; SQLite, first.
    static let orderSuffix = " NULLS FIRST"

    /// A `bigint`.
    static func count(where condition: String?) -> String {
        "count(*)" + (condition.map { " FILTER (WHERE \($0))" } ?? "")
    }

    /// `sum` of `bigint` is `numeric`: cast back.
    static func total(_ column: String, where condition: String?) -> String {
        "COALESCE(sum(\(column))\(condition.map { " FILTER (WHERE \($0))" } ?? ""), 0)::bigint"
    }

    /// The rollup's day column, collated as the arrival day's expression is.
    static let rollupDay = "\(PostbackRollup.day) COLLATE \"C\""

    /// A dimension as an SQL expression of the type SQLite's gives (so that it sorts the same way).
    static func expression(_ dimension: AggregateQuery.Dimension, day: AggregateQuery.DayBasis) -> String {
        switch dimension {
        case .network: "ad_network_id COLLATE \"C\""
        case .app: "app_id"
        case .campaign: "COALESCE(campaign_id::text, source_identifier) COLLATE \"C\""
        case .source: "COALESCE(source_app_id::text, source_domain) COLLATE \"C\""
        case .version: "version COLLATE \"C\""
        case .fidelity: "fidelity_type"
        case .didWin: "did_win::text COLLATE \"C\""
        case .redownload: "redownload::text COLLATE \"C\""
        case .window: "postback_sequence_index"
        case .tier: "length(source_identifier)"
        case .conversionValue: "conversion_value"
        case .coarseValue: "coarse_conversion_value COLLATE \"C\""
        case .framework: "framework COLLATE \"C\""
        case .conversionType: "conversion_type COLLATE \"C\""
        case .interaction: "(CASE fidelity_type WHEN 1 THEN 'click' WHEN 0 THEN 'view' END) COLLATE \"C\""
        case .country: "country_code COLLATE \"C\""
        case .marketplace: "marketplace_identifier COLLATE \"C\""
        case .day:
            switch day {
            case .arrival:
                "substr(received_at, 1, 10) COLLATE \"C\""
            case .install:
                // received_at is UTC text; the offsets are SQLiteAggregateSQL's (AggregateQuery.DayBasis.install).
                """
                to_char((received_at::timestamptz AT TIME ZONE 'UTC') - CASE WHEN version = '4.0' OR framework = 'adattributionkit' \
                THEN CASE COALESCE(postback_sequence_index, 0) WHEN 0 THEN interval '84 hours' WHEN 1 THEN interval '252 hours' \
                ELSE interval '924 hours' END ELSE interval '36 hours' END, 'YYYY-MM-DD') COLLATE "C"
                """
            }
        }
    }
}
