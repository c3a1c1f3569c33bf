import Foundation
import SKANCore

/// One postback on its way into the store: either accepted (verified) or refused.
public enum StoreEntry: Sendable {
    /// A postback a trusted key signed.
    case accepted(AcceptedPostback)
    /// A body that was refused, kept for diagnosis in a size-capped table.
    case rejected(RejectedPostback)
}

/// A verified postback with what the collector knows about its arrival.
public struct AcceptedPostback: Sendable {
    /// The verified postback, with the key and layout that verified it.
    public let verified: VerifiedPostback
    /// The bytes as received.
    public let rawBody: [UInt8]
    /// When the collector received it.
    public let receivedAt: Date
    /// Where it came from: the HTTP path, or `ingest:FILE`.
    public let endpoint: String

    /// Makes an accepted entry.
    public init(verified: VerifiedPostback, rawBody: [UInt8], receivedAt: Date, endpoint: String) {
        self.verified = verified
        self.rawBody = rawBody
        self.receivedAt = receivedAt
        self.endpoint = endpoint
    }

    /// The duplicate key: one collector may serve several networks, and the three 4.0 postbacks of one
    /// install may share a transaction id (spec §10.3), so the sequence index (0 when absent) is part of it.
    public var dedupKey: DedupKey {
        DedupKey(adNetworkID: verified.postback.adNetworkID, transactionID: verified.postback.transactionID,
                 sequenceIndex: verified.postback.postbackSequenceIndex ?? 0)
    }
}

/// What makes two postbacks the same postback.
public struct DedupKey: Sendable, Hashable {
    /// `ad-network-id`.
    public let adNetworkID: String
    /// `transaction-id`.
    public let transactionID: String
    /// `postback-sequence-index`, 0 when the postback has none.
    public let sequenceIndex: Int
}

/// A refused body with the verdict's reason.
public struct RejectedPostback: Sendable {
    /// Why it was refused, as a stable word: `malformed`, `invalid-signature`, `unsupported-version`, `too-large`.
    public let status: String
    /// The field at fault, when one is.
    public let field: String?
    /// A sentence naming the field, the value and what was expected.
    public let reason: String
    /// The version as sent, when known.
    public let version: String?
    /// The transaction id as sent, when known, so that a refusal can be traced.
    public let transactionID: String?
    /// The ad network id, when the body parsed.
    public let adNetworkID: String?
    /// The bytes as received (the store may keep only a prefix).
    public let rawBody: [UInt8]
    /// When the collector received it.
    public let receivedAt: Date
    /// Where it came from.
    public let endpoint: String

    /// Makes a rejected entry.
    public init(status: String, field: String?, reason: String, version: String?, transactionID: String?,
                adNetworkID: String?, rawBody: [UInt8], receivedAt: Date, endpoint: String) {
        self.status = status
        self.field = field
        self.reason = reason
        self.version = version
        self.transactionID = transactionID
        self.adNetworkID = adNetworkID
        self.rawBody = rawBody
        self.receivedAt = receivedAt
        self.endpoint = endpoint
    }

    /// A rejected entry from a verdict that is not valid.
    public init(verdict: PostbackVerdict, rawBody: [UInt8], receivedAt: Date, endpoint: String) {
        self.init(status: verdict.status.rawValue, field: verdict.field, reason: verdict.reason ?? "",
                  version: verdict.version, transactionID: verdict.transactionID,
                  adNetworkID: verdict.postback?.adNetworkID, rawBody: rawBody, receivedAt: receivedAt,
                  endpoint: endpoint)
    }
}

/// What the store did with one entry, once its transaction committed.
public enum StoreOutcome: Sendable, Hashable {
    /// A new postback, now durable.
    case stored
    /// The same (ad network, transaction, sequence index) was already stored; nothing was written.
    case duplicate
    /// A refused body, recorded in `rejected_postbacks`.
    case rejectionRecorded
}
