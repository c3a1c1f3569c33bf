import SKANCore

/// What the collector answers for one postback: an HTTP status and a small JSON body.
public struct PostbackReply: Sendable, Hashable {
    /// What happened, as the `status` word of the body.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        case accepted
        case duplicate
        case malformed
        case invalidSignature = "invalid-signature"
        case unsupportedVersion = "unsupported-version"
        case tooLarge = "too-large"
        case unsupportedMediaType = "unsupported-media-type"
        /// The HTTP request itself breaks HTTP/1.1's rules (no `Host`), whatever its body.
        case badRequest = "bad-request"
        /// The store failed: not the client's fault, so the device should retry (503).
        case unavailable
    }

    /// The outcome.
    public let outcome: Outcome
    /// The field at fault, for refusals that have one.
    public let field: String?
    /// Why, for refusals.
    public let reason: String?

    /// Makes a reply.
    public init(_ outcome: Outcome, field: String? = nil, reason: String? = nil) {
        self.outcome = outcome
        self.field = field
        self.reason = reason
    }

    /// The reply to a verdict that is not valid.
    init(refusing verdict: AttributionVerdict) {
        let outcome: Outcome = switch verdict.status {
        case .valid, .malformed: .malformed
        case .invalidSignature: .invalidSignature
        case .unsupportedVersion: .unsupportedVersion
        }
        let field = verdict.status == .invalidSignature ? verdict.framework.signatureField : verdict.field
        self.init(outcome, field: field, reason: verdict.reason)
    }

    /// The HTTP status code: 200 for accepted and duplicate (a device's retry is not an error), 4xx for what the
    /// client sent, 503 only when storage failed.
    public var statusCode: Int {
        switch outcome {
        case .accepted, .duplicate: 200
        case .malformed, .invalidSignature, .unsupportedVersion, .badRequest: 400
        case .tooLarge: 413
        case .unsupportedMediaType: 415
        case .unavailable: 503
        }
    }

    /// The body: `{"status":"accepted"}`, or the status with the field and the reason.
    public var json: String {
        var writer = JSONWriter()
        writer.string("status", outcome.rawValue)
        if let field { writer.string("field", field) }
        if let reason { writer.string("reason", reason) }
        return writer.json
    }
}
