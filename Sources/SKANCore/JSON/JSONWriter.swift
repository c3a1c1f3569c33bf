/// Writes JSON objects with keys in the order given, which is what people and golden files expect to read
/// and what `JSONEncoder` cannot promise.
///
/// It writes UTF-8 bytes. Output paths that run once per postback (`skan verify`, the simulator) write their
/// fixed-shape lines into one buffer with the static helpers (``appendLiteral(_:to:)``, ``appendQuoted(_:to:)``,
/// ``appendInteger(_:to:)``) instead of building an object member by member.
public struct JSONWriter: Sendable {
    private var bytes: [UInt8]
    private var isFirst = true

    /// Starts an empty object.
    public init() {
        bytes = [UInt8(ascii: "{")]
    }

    /// Adds a member whose value is already JSON text.
    public mutating func raw(_ key: String, _ json: String) {
        member(key)
        bytes += json.utf8
    }

    /// Adds a string member.
    public mutating func string(_ key: String, _ value: String) {
        member(key)
        Self.appendQuoted(value, to: &bytes)
    }

    /// Adds a string member, or `null`.
    public mutating func string(_ key: String, _ value: String?) {
        guard let value else { return raw(key, "null") }
        string(key, value)
    }

    /// Adds an integer member.
    public mutating func integer(_ key: String, _ value: some BinaryInteger) {
        member(key)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        Self.appendDigits(UInt64(value.magnitude), to: &bytes)
    }

    /// Adds a boolean member.
    public mutating func bool(_ key: String, _ value: Bool) { raw(key, value ? "true" : "false") }

    /// Adds an array of strings.
    public mutating func strings(_ key: String, _ values: [String]) {
        member(key)
        bytes.append(UInt8(ascii: "["))
        var isFirstValue = true
        for value in values {
            if isFirstValue { isFirstValue = false } else { bytes.append(UInt8(ascii: ",")) }
            Self.appendQuoted(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The finished object as text.
    public var json: String { String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self) }

    private mutating func member(_ key: String) {
        if isFirst { isFirst = false } else { bytes.append(UInt8(ascii: ",")) }
        Self.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A JSON string literal for `value`, escaping what RFC 8259 requires.
    public static func quoted(_ value: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count + 2)
        appendQuoted(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `value` as a JSON string literal: quotes, backslash and control characters escaped, everything
    /// else (non-ASCII included) as its UTF-8 bytes.
    public static func appendQuoted(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(value, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends the inside of a JSON string literal for `value`, so callers can build one literal from parts.
    public static func appendEscaped(_ value: String, to out: inout [UInt8]) {
        var value = value
        value.withUTF8 { utf8 in
            // Most values (ids, versions, field names) need no escaping: copy the runs between escapes whole.
            var runStart = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
                case UInt8(ascii: "\n"): out.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): out.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): out.append(UInt8(ascii: "t"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out += [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
    }

    /// Appends `text` as it is: for literal JSON fragments and words, which need no escaping and no `String`.
    @inlinable
    public static func appendLiteral(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends the decimal digits of `value`, without the string `String(value)` would allocate.
    public static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, to: &out)
    }

    private static func appendDigits(_ value: UInt64, to out: inout [UInt8]) {
        // 20 digits hold any 64-bit magnitude.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            var rest = value
            repeat {
                digits[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(20 - count)...]))
        }
    }
}
