/// Times in the simulation: milliseconds since 1970, as impression timestamps are, with no wall clock behind
/// them. Weeks of device behaviour pass as arithmetic.
public enum SimulatedTime {
    /// One hour in milliseconds.
    public static let hour: Int64 = 3_600_000
    /// One minute in milliseconds.
    public static let minute: Int64 = 60_000
    /// One day in milliseconds.
    public static let day: Int64 = 86_400_000

    /// `2026-03-02T14:05:09.123Z` for a time in milliseconds: ISO 8601, UTC, always with milliseconds.
    ///
    /// Written by hand rather than with a date formatter because it runs for every output line, and a formatter
    /// is both slow and locale-sensitive.
    public static func iso8601(_ milliseconds: Int64) -> String {
        let days = floorDivide(milliseconds, day)
        let inDay = milliseconds - days * day
        let (year, month, dayOfMonth) = civil(fromDays: days)
        let hours = inDay / hour, minutes = inDay / 60_000 % 60, seconds = inDay / 1000 % 60, millis = inDay % 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(dayOfMonth, 2))T\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(millis, 3))Z"
    }

    /// Appends ``iso8601(_:)`` as UTF-8 without building a string.
    public static func appendISO8601(_ milliseconds: Int64, to out: inout [UInt8]) {
        let days = floorDivide(milliseconds, day)
        let inDay = milliseconds - days * day
        let (year, month, dayOfMonth) = civil(fromDays: days)
        // The 24 characters go into a stack buffer, right to left by constant tens, and into `out` in one
        // append: an output line holds up to five times, and a digit at a time through the array (a uniqueness
        // and a bounds check each) cost more than the rest of the line.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            func digits(_ value: Int64, _ width: Int, endingAt end: Int) {
                var rest = UInt64(value)
                for index in stride(from: end - 1, through: end - width, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            digits(year, 4, endingAt: 4)
            text[4] = UInt8(ascii: "-")
            digits(month, 2, endingAt: 7)
            text[7] = UInt8(ascii: "-")
            digits(dayOfMonth, 2, endingAt: 10)
            text[10] = UInt8(ascii: "T")
            digits(inDay / hour, 2, endingAt: 13)
            text[13] = UInt8(ascii: ":")
            digits(inDay / 60_000 % 60, 2, endingAt: 16)
            text[16] = UInt8(ascii: ":")
            digits(inDay / 1000 % 60, 2, endingAt: 19)
            text[19] = UInt8(ascii: ".")
            digits(inDay % 1000, 3, endingAt: 23)
            text[23] = UInt8(ascii: "Z")
            out.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// Reads `2026-03-02`, `2026-03-02T14:05:09Z` or `2026-03-02T14:05:09.123Z` (UTC only).
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = number(0..<4), let month = number(5..<7), let dayOfMonth = number(8..<10),
              (1...12).contains(month), (1...31).contains(dayOfMonth) else { return nil }
        var time = days(fromCivil: year, month, dayOfMonth) * day
        if bytes.count == 10 { return time }
        guard bytes.count >= 20, bytes[10] == UInt8(ascii: "T"), bytes.last == UInt8(ascii: "Z"),
              let hours = number(11..<13), let minutes = number(14..<16), let seconds = number(17..<19),
              hours < 24, minutes < 60, seconds < 60 else { return nil }
        time += hours * hour + minutes * 60_000 + seconds * 1000
        if bytes.count == 20 { return time }
        guard bytes.count == 24, bytes[19] == UInt8(ascii: "."), let millis = number(20..<23) else { return nil }
        return time + millis
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    // Howard Hinnant's days-from-civil and civil-from-days, proleptic Gregorian.
    private static func days(fromCivil year: Int64, _ month: Int64, _ dayOfMonth: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + dayOfMonth - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfMonth)
    }
}
