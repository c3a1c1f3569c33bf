/// A postback whose signature a trusted key has checked.
public struct VerifiedPostback: Sendable, Hashable {
    /// The postback as parsed.
    public let postback: Postback
    /// The name of the trusted key that verified it (`apple-p256` ...).
    public let keyName: String
    /// The field order that matched. ``PostbackLayout/v2_2SignedAs2_0`` says the 2.2 fallback was used.
    public let layout: PostbackLayout
    /// The fields Apple's signature covers, in signing order.
    public let signedFields: [PostbackField]
    /// The known fields present but not covered by the signature: conversion values always, and
    /// `fidelity-type` or `did-win` where the layout does not sign them. Report them as claims.
    public let claimedFields: [PostbackField]
}

/// What verification says about one postback. Every input gets exactly one of these; none is thrown.
public enum PostbackVerdict: Sendable, Hashable {
    /// A trusted key signed the postback's fields in the order of its version.
    case valid(VerifiedPostback)
    /// The postback is well formed, but no trusted key's signature matches it (including a signature that
    /// is not Base64 or not DER).
    case invalidSignature(Postback, reason: String)
    /// The body is not a well-formed postback.
    case malformed(MalformedPostback)
    /// The `version` is not one SKANKit knows.
    case unsupportedVersion(String, transactionID: String?)

    /// The four outcomes as stable words: the same words as every framework's verdicts.
    public typealias Status = AttributionVerdict.Status

    /// Which of the four outcomes this is.
    public var status: Status {
        switch self {
        case .valid: .valid
        case .invalidSignature: .invalidSignature
        case .malformed: .malformed
        case .unsupportedVersion: .unsupportedVersion
        }
    }

    /// The postback, when it parsed.
    public var postback: Postback? {
        switch self {
        case .valid(let verified): verified.postback
        case .invalidSignature(let postback, _): postback
        case .malformed, .unsupportedVersion: nil
        }
    }

    /// The version as sent ("1.0" for a postback without a version key), when known.
    public var version: String? {
        switch self {
        case .valid(let verified): verified.postback.version.rawValue
        case .invalidSignature(let postback, _): postback.version.rawValue
        case .malformed(let malformed): malformed.version
        case .unsupportedVersion(let version, _): version
        }
    }

    /// The transaction id as sent, when it was a string.
    public var transactionID: String? {
        switch self {
        case .valid(let verified): verified.postback.transactionID
        case .invalidSignature(let postback, _): postback.transactionID
        case .malformed(let malformed): malformed.transactionID
        case .unsupportedVersion(_, let transactionID): transactionID
        }
    }

    /// Why the postback is not valid; `nil` when it is, or a note when only the 2.2 fallback matched.
    public var reason: String? {
        switch self {
        case .valid(let verified):
            verified.layout.isFallback
                ? "signed with the 2.0/2.1 field order: fidelity-type is claimed, not signed" : nil
        case .invalidSignature(_, let reason): reason
        case .malformed(let malformed): malformed.reason
        case .unsupportedVersion(let version, _):
            // The version is echoed to the client and stored: cut, like every value a reason quotes.
            "version \(JSONWriter.quoted(Excerpt.of(version, maximumBytes: 80))) is not one of \(PostbackVersion.allCases.map(\.rawValue).joined(separator: ", "))"
        }
    }

    /// The field a malformed postback was refused for.
    public var field: String? {
        if case .malformed(let malformed) = self { return malformed.field }
        if case .unsupportedVersion = self { return PostbackField.version.key }
        return nil
    }

    /// Whether the postback is valid.
    public var isValid: Bool { status == .valid }
}
