/// Which day a postback counts on.
public enum DayBasis: String, Sendable, Hashable, CaseIterable {
    /// The day the collector received it (UTC).
    case arrival
    /// The estimated install day: the arrival time minus the device's typical delays (spec §6), see ``sql``.
    case install

    /// The day as an SQL expression over `received_at` (ISO 8601 UTC text).
    ///
    /// The install estimate subtracts the middle of each documented delay:
    /// - up to 3.0, a postback leaves 24 h after the last conversion update plus a random 0–24 h: 36 h;
    /// - 4.0 window 0 is prepared at the end of day 2 (48 h) and sent 24–48 h later: 48 + 36 = 84 h;
    /// - 4.0 window 1 ends on day 7 (168 h) and is sent 24–144 h later: 168 + 84 = 252 h;
    /// - 4.0 window 2 ends on day 35 (840 h): 840 + 84 = 924 h.
    /// A window locked early makes the estimate too early by the unused part of the window; it is an estimate.
    var sql: String {
        switch self {
        case .arrival:
            "substr(received_at, 1, 10)"
        case .install:
            """
            date(received_at, CASE WHEN version = '4.0' THEN CASE COALESCE(postback_sequence_index, 0) \
            WHEN 0 THEN '-84 hours' WHEN 1 THEN '-252 hours' ELSE '-924 hours' END ELSE '-36 hours' END)
            """
        }
    }
}
