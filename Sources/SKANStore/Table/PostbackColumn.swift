/// One stored column of the postbacks table: its name, its type, and how its value is read from an accepted
/// postback. ``PostbackTable/columns`` lists them; the insert, the row decoding and the export header are made
/// from that list, and a test checks the engines' migrated schema against it.
public struct PostbackColumn: Sendable {
    /// How a column's values are stored.
    public enum Kind: Sendable, Hashable {
        case text, integer, boolean, blob
    }

    /// The column's name in every engine.
    public let name: String
    /// How values are stored.
    public let kind: Kind
    /// Whether a row may have no value.
    public let isNullable: Bool
    /// The column's value for an accepted postback.
    public let value: @Sendable (AcceptedPostback) -> ColumnValue

    init(_ name: String, _ kind: Kind, nullable: Bool = false,
         _ value: @escaping @Sendable (AcceptedPostback) -> ColumnValue) {
        self.name = name
        self.kind = kind
        self.isNullable = nullable
        self.value = value
    }
}

/// One value of a row on its way into an engine.
public enum ColumnValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    static func integer(_ value: Int?) -> ColumnValue { value.map { .integer(Int64($0)) } ?? .null }
    static func boolean(_ value: Bool?) -> ColumnValue { value.map { .integer($0 ? 1 : 0) } ?? .null }
    static func text(_ value: String?) -> ColumnValue { value.map { .text($0) } ?? .null }

    /// The text, or `nil` for any other value.
    public var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The integer, or `nil` for any other value.
    public var integer: Int? {
        if case .integer(let number) = self { return Int(number) }
        return nil
    }

    /// A boolean as the engines store it (0 or 1), or `nil`.
    public var boolean: Bool? { integer.map { $0 != 0 } }
}
