import Foundation

/// ISO 8601 UTC text with milliseconds (`2026-05-01T12:00:00.123Z`): sortable as text and readable in `sqlite3`.
enum Timestamp {
    /// Formats with `gmtime_r` because this runs once per postback and a formatter object costs far more.
    static func iso8601(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds.quotientAndRemainder(dividingBy: 1000).quotient)
        var fraction = Int(milliseconds - Int64(seconds) * 1000)
        if fraction < 0 { fraction += 1000; seconds -= 1 }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), fraction)
    }
}
