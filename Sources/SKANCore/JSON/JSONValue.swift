/// One JSON value as the strict reader keeps it: scalars decoded, numbers as their exact text (so that an
/// integer field can tell `42` from `42.0` and from a number past 64 bits), nested values as raw JSON text.
public enum JSONValue: Sendable, Hashable {
    case string(String)
    /// The number exactly as it was written.
    case number(String)
    case bool(Bool)
    case null
    /// A nested object, as its raw JSON text.
    case object(String)
    /// A nested array, as its raw JSON text.
    case array(String)

    /// How errors describe what was sent: `"42" (a string)`, `42.5 (a number)`, `true (a boolean)`.
    public var described: String {
        switch self {
        case .string(let text): "\(JSONWriter.quoted(String(text.prefix(80)))) (a string)"
        case .number(let text): "\(text.prefix(80)) (a number)"
        case .bool(let value): "\(value) (a boolean)"
        case .null: "null"
        case .object: "an object"
        case .array: "an array"
        }
    }

    /// The value as JSON text, for writing it back out unchanged.
    public var jsonText: String {
        switch self {
        case .string(let text): JSONWriter.quoted(text)
        case .number(let text), .object(let text), .array(let text): text
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        }
    }
}

/// One `"key": value` pair of a JSON object, in the order received.
public struct JSONMember: Sendable, Hashable {
    /// The key, decoded.
    public let key: String
    /// The value.
    public let value: JSONValue

    /// Makes a member.
    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}
