import Foundation

/// ISO 8601 UTC text with milliseconds (`2026-05-01T12:00:00.123Z`): sortable as text and readable in `sqlite3`.
public enum Timestamp {
    /// Formats with `gmtime_r` and writes the digits itself: this runs once per postback on the single writer
    /// thread, where `String(format:)` showed up in profiles under load and a formatter object costs far more.
    public static func iso8601(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds.quotientAndRemainder(dividingBy: 1000).quotient)
        var fraction = Int(milliseconds - Int64(seconds) * 1000)
        if fraction < 0 { fraction += 1000; seconds -= 1 }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text: [UInt8] = []
        text.reserveCapacity(24)
        func append(_ value: Int, width: Int, then separator: UInt8?) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
            if let separator { text.append(separator) }
        }
        append(Int(parts.tm_year) + 1900, width: 4, then: UInt8(ascii: "-"))
        append(Int(parts.tm_mon) + 1, width: 2, then: UInt8(ascii: "-"))
        append(Int(parts.tm_mday), width: 2, then: UInt8(ascii: "T"))
        append(Int(parts.tm_hour), width: 2, then: UInt8(ascii: ":"))
        append(Int(parts.tm_min), width: 2, then: UInt8(ascii: ":"))
        append(Int(parts.tm_sec), width: 2, then: UInt8(ascii: "."))
        append(fraction, width: 3, then: UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }
}
