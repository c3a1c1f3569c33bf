/// A client's value cut to a bound, for anything that stores, echoes or logs it.
///
/// A postback's text fields have no length limit of their own (a 65 KB `version` parses as a string), so every
/// place that keeps or repeats one cuts it first; the cut value says how long the original was, so nothing about
/// its size is lost.
public enum Excerpt {
    /// `text` when it has at most `maximumBytes` UTF-8 bytes; otherwise its longest prefix of whole characters
    /// that fits with the marker `…[N bytes]` (N the original length) inside `maximumBytes`.
    public static func of(_ text: String, maximumBytes: Int) -> String {
        let length = text.utf8.count
        guard length > maximumBytes else { return text }
        let marker = "…[\(length) bytes]"
        let room = max(0, maximumBytes - marker.utf8.count)
        var end = text.startIndex
        var used = 0
        for index in text.indices {
            let next = text.index(after: index)
            let size = text.utf8.distance(from: index, to: next)
            if used + size > room { break }
            used += size
            end = next
        }
        return String(text[..<end]) + marker
    }


    /// `text` made safe for one log line, then cut: control characters (newlines above all, which would let a
    /// client start a forged line), DEL, C1 controls, the Unicode line and paragraph separators and the invisible
    /// format characters (bidirectional overrides such as U+202E, which make a terminal show a line's text in
    /// another order than it has, zero-width characters, BOM) are written as `\n`, `\r`, `\t` or `\u{XX}`.
    /// Backslashes stay as they are, so that escaping twice changes nothing.
    public static func printable(_ text: String, maximumBytes: Int) -> String {
        var needsEscaping = false
        for scalar in text.unicodeScalars where Self.isUnprintable(scalar) {
            needsEscaping = true
            break
        }
        guard needsEscaping else { return of(text, maximumBytes: maximumBytes) }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where Self.isUnprintable(scalar): escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return of(escaped, maximumBytes: maximumBytes)
    }

    private static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x7F { return scalar.value < 0x20 }
        // General category Cf: U+061C, U+200B-U+200F, U+202A-U+202E, U+2060-U+2069, U+FEFF and the rest.
        return scalar.value <= 0x9F || scalar.value == 0x2028 || scalar.value == 0x2029
            || scalar.properties.generalCategory == .format
    }
}
