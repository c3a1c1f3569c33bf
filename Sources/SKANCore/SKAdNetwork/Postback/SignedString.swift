import Foundation

/// The text SKAdNetwork signs: field values joined by U+2063 INVISIBLE SEPARATOR, as UTF-8 bytes.
///
/// Values go in as they were received (integers as decimal text, booleans as `true`/`false`); an absent
/// optional field is left out with its separator, never replaced by an empty slot.
public struct SignedString: Sendable, Hashable, CustomStringConvertible {
    /// U+2063 INVISIBLE SEPARATOR in UTF-8.
    public static let separator: [UInt8] = [0xE2, 0x81, 0xA3]

    /// The UTF-8 bytes that are signed.
    public private(set) var bytes: [UInt8]
    private var isEmpty = true

    /// An empty string, ready for ``append(_:)``.
    public init() {
        bytes = []
        bytes.reserveCapacity(192)
    }

    /// Joins values with the separator.
    public init(_ values: [String]) {
        self.init()
        for value in values { append(value) }
    }

    /// Adds a text value after a separator (none before the first).
    public mutating func append(_ value: String) {
        appendSeparator()
        bytes.append(contentsOf: value.utf8)
    }

    /// Adds an integer as decimal text.
    public mutating func append(_ value: Int64) {
        appendSeparator()
        // Straight into the bytes: `String(value)` would build a string per field of every postback.
        JSONWriter.appendInteger(value, to: &bytes)
    }

    /// Adds a boolean as `true` or `false`.
    public mutating func append(_ value: Bool) {
        appendSeparator()
        JSONWriter.appendLiteral(value ? "true" : "false", to: &bytes)
    }

    private mutating func appendSeparator() {
        if isEmpty { isEmpty = false } else { bytes.append(contentsOf: Self.separator) }
    }

    /// The text with the separator shown as `␣`, for people reading errors and docs.
    public var description: String {
        String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\u{2063}", with: "␣")
    }
}
