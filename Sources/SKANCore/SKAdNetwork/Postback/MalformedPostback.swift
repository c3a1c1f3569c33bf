/// Why a body is not a postback SKANKit can judge, naming the field, what was sent and what was expected.
public struct MalformedPostback: Error, Sendable, Hashable, CustomStringConvertible {
    /// The JSON key at fault, or `nil` when the body itself is not a JSON object.
    public let field: String?
    /// A sentence for a person: `campaign-id must be an integer 1...100, got "42" (a string)`.
    public let reason: String
    /// The `version` as sent, when it was a string.
    public let version: String?
    /// The `transaction-id` as sent, when it was a string, so that a refusal can still be traced.
    public let transactionID: String?

    /// Makes a refusal; `field` is `nil` when the body as a whole is at fault.
    public init(field: String?, reason: String, version: String? = nil, transactionID: String? = nil) {
        self.field = field
        self.reason = reason
        self.version = version
        self.transactionID = transactionID
    }

    public var description: String { reason }
}

/// Why parsing did not give a ``Postback``.
public enum PostbackRejection: Error, Sendable, Hashable {
    /// The body breaks the format: bad JSON, a missing field, a wrong type, a value out of range.
    case malformed(MalformedPostback)
    /// The `version` is one SKANKit does not know, so neither key nor field order can be chosen.
    case unsupportedVersion(String, transactionID: String?)
}
