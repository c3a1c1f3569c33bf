/// Writes JSON objects with keys in the order given, which is what people and golden files expect to read
/// and what `JSONEncoder` cannot promise.
public struct JSONWriter: Sendable {
    private var text = "{"
    private var isFirst = true

    /// Starts an empty object.
    public init() {}

    /// Adds a member whose value is already JSON text.
    public mutating func raw(_ key: String, _ json: String) {
        if isFirst { isFirst = false } else { text += "," }
        text += Self.quoted(key)
        text += ":"
        text += json
    }

    /// Adds a string member.
    public mutating func string(_ key: String, _ value: String) { raw(key, Self.quoted(value)) }
    /// Adds a string member, or `null`.
    public mutating func string(_ key: String, _ value: String?) { raw(key, value.map(Self.quoted) ?? "null") }
    /// Adds an integer member.
    public mutating func integer(_ key: String, _ value: some BinaryInteger) { raw(key, String(value)) }
    /// Adds a boolean member.
    public mutating func bool(_ key: String, _ value: Bool) { raw(key, value ? "true" : "false") }
    /// Adds an array of strings.
    public mutating func strings(_ key: String, _ values: [String]) {
        raw(key, "[" + values.map(Self.quoted).joined(separator: ",") + "]")
    }

    /// The finished object.
    public var json: String { text + "}" }

    /// A JSON string literal for `value`, escaping what RFC 8259 requires.
    public static func quoted(_ value: String) -> String {
        // Most values (ids, versions, field names) need no escaping: one scan of the bytes, one copy.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            var out = "\""
            out.reserveCapacity(value.utf8.count + 2)
            out += value
            out += "\""
            return out
        }
        var out = "\""
        out.reserveCapacity(value.utf8.count + 2)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
