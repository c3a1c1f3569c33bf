/// What verification says about one postback of either framework. Every input gets exactly one of these; none
/// is thrown.
public enum AttributionVerdict: Sendable, Hashable {
    /// A trusted key signed it.
    case valid(VerifiedAttribution)
    /// It was refused, with the reason.
    case refused(AttributionRefusal)

    /// The outcomes as stable words for JSON, CSV, replies and metrics.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case valid
        case invalidSignature = "invalid-signature"
        case malformed
        case unsupportedVersion = "unsupported-version"
    }

    /// Which outcome this is.
    public var status: Status {
        switch self {
        case .valid: .valid
        case .refused(let refusal): refusal.status
        }
    }

    /// The framework the body was recognised as.
    public var framework: Framework {
        switch self {
        case .valid(let verified): verified.framework
        case .refused(let refusal): refusal.framework
        }
    }

    /// The version as sent, when known.
    public var version: String? {
        switch self {
        case .valid(let verified): verified.fields.frameworkVersion
        case .refused(let refusal): refusal.version
        }
    }

    /// The dedup id (transaction or postback identifier) as sent, when it was a string.
    public var dedupID: String? {
        switch self {
        case .valid(let verified): verified.fields.dedupID
        case .refused(let refusal): refusal.dedupID
        }
    }

    /// The ad network, when the body parsed.
    public var network: String? {
        switch self {
        case .valid(let verified): verified.fields.network
        case .refused(let refusal): refusal.network
        }
    }

    /// Why it was refused; for a valid postback, a note or `nil`.
    public var reason: String? {
        switch self {
        case .valid(let verified): verified.note
        case .refused(let refusal): refusal.reason
        }
    }

    /// The field a refusal points at, when it points at one (a signature refusal names none: see
    /// ``Framework/signatureField``).
    public var field: String? {
        if case .refused(let refusal) = self { return refusal.field }
        return nil
    }

    /// Whether the postback is valid.
    public var isValid: Bool { status == .valid }

    /// A refusal of a body that is not a postback of any framework (not an object, too long ...).
    public static func malformed(_ reason: String, field: String? = nil, framework: Framework = .skadnetwork) -> Self {
        .refused(AttributionRefusal(framework: framework, status: .malformed, field: field, reason: reason,
                                    version: nil, dedupID: nil, network: nil))
    }
}

/// A refused postback: the outcome, the reason, and what could be read of the body for tracing it.
public struct AttributionRefusal: Sendable, Hashable {
    /// The framework the body was recognised as.
    public let framework: Framework
    /// `invalid-signature`, `malformed` or `unsupported-version`.
    public let status: AttributionVerdict.Status
    /// The field at fault, when one is.
    public let field: String?
    /// A sentence naming the field, the value and what was expected.
    public let reason: String
    /// The version as sent, when known.
    public let version: String?
    /// The dedup id as sent, when it was a string.
    public let dedupID: String?
    /// The ad network, when the body parsed.
    public let network: String?

    /// Makes a refusal.
    public init(framework: Framework, status: AttributionVerdict.Status, field: String?, reason: String,
                version: String?, dedupID: String?, network: String?) {
        self.framework = framework
        self.status = status
        self.field = field
        self.reason = reason
        self.version = version
        self.dedupID = dedupID
        self.network = network
    }
}
