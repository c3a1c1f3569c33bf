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
    /// The verified postback in neutral terms, with the key that verified it.
    public let attribution: VerifiedAttribution
    /// The bytes as received.
    public let rawBody: [UInt8]
    /// When the collector received it.
    public let receivedAt: Date
    /// Where it came from: the HTTP path, or `ingest:FILE`.
    public let endpoint: String
    /// What the relay queues with it (``Outbox``): written in its transaction when it is stored, dropped when it
    /// is a duplicate. Empty, the default, costs the write nothing.
    public var outbox: [OutboxItem] = []
    /// The client's address as the collector resolved it (behind a trusted proxy, the forwarded one), when it knows
    /// one: stored with the postback (``PostbackTable/clientAddress``) and with a repeat in ``RepeatTable``, to say
    /// where each copy of a conflict came from.
    public var clientAddress: String? = nil

    /// Makes an accepted entry.
    public init(attribution: VerifiedAttribution, rawBody: [UInt8], receivedAt: Date, endpoint: String) {
        self.attribution = attribution
        self.rawBody = rawBody
        self.receivedAt = receivedAt
        self.endpoint = endpoint
    }

    /// The duplicate key: one collector may serve several networks and both frameworks, and the three
    /// postbacks of one install may share a dedup id (spec §10.3), so the window (0 when absent) is part of it.
    public var dedupKey: DedupKey {
        let fields = attribution.fields
        return DedupKey(framework: attribution.framework, network: fields.network, dedupID: fields.dedupID,
                        window: fields.window ?? 0)
    }
}

/// What makes two postbacks the same postback.
public struct DedupKey: Sendable, Hashable {
    /// The framework that sent it.
    public let framework: Framework
    /// The ad network.
    public let network: String
    /// `transaction-id` or `postback-identifier`.
    public let dedupID: String
    /// `postback-sequence-index`, 0 when the postback has none.
    public let window: Int
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
    public init(verdict: AttributionVerdict, rawBody: [UInt8], receivedAt: Date, endpoint: String) {
        self.init(status: verdict.status.rawValue, field: verdict.field, reason: verdict.reason ?? "",
                  version: verdict.version, transactionID: verdict.dedupID, adNetworkID: verdict.network,
                  rawBody: rawBody, receivedAt: receivedAt, endpoint: endpoint)
    }
}

/// What the store did with one entry, once its transaction committed.
public enum StoreOutcome: Sendable, Hashable {
    /// A new postback, now durable.
    case stored
    /// The same (framework, ad network, dedup id, window) was already stored; the stored row is unchanged. A repeat
    /// whose unsigned values differ, or that came from the other ``CopySide``, is kept in ``RepeatTable``.
    case duplicate
    /// A refused body, recorded in `rejected_postbacks`.
    case rejectionRecorded
}

extension AcceptedPostback {
    /// What a stored postback counts under in ``StoreStats/postbacksByKey``.
    public var counterKey: PostbackCounterKey {
        PostbackCounterKey(framework: attribution.framework, version: attribution.fields.frameworkVersion)
    }

    /// The name of the counter a stored postback adds to after ``StatCounter/postbacksPrefix``
    /// (``PostbackCounterKey/counterName``). Public for the engines in other targets.
    public var statsVersion: String { String(counterKey.counterName.dropFirst(StatCounter.postbacksPrefix.count)) }
}
