import SKANCore

/// A postback as the store holds it, in neutral terms.
public struct StoredPostback: Sendable, Hashable {
    /// The framework that sent it.
    public let framework: Framework
    /// Its fields, rebuilt from the columns (the extras are in ``extrasJSON``).
    public let fields: AttributionFields
    /// The extra keys as a JSON object text, when the postback had any.
    public let extrasJSON: String?
    /// The bytes as received.
    public let rawBody: [UInt8]
    /// When it was received, ISO 8601 in UTC.
    public let receivedAt: String
    /// The trusted key that verified it.
    public let keyName: String
    /// How the signature was checked: the SKAdNetwork layout, or the AdAttributionKit key id.
    public let layout: String
    /// Where it came from.
    public let endpoint: String

    /// The duplicate key it was stored under (``AcceptedPostback/dedupKey``).
    public var dedupKey: DedupKey {
        DedupKey(framework: framework, network: fields.network, dedupID: fields.dedupID, window: fields.window ?? 0)
    }

    /// Makes a stored postback.
    public init(framework: Framework, fields: AttributionFields, extrasJSON: String?, rawBody: [UInt8],
                receivedAt: String, keyName: String, layout: String, endpoint: String) {
        self.framework = framework
        self.fields = fields
        self.extrasJSON = extrasJSON
        self.rawBody = rawBody
        self.receivedAt = receivedAt
        self.keyName = keyName
        self.layout = layout
        self.endpoint = endpoint
    }
}

/// Counts of what a store holds, for `GET /stats`.
public struct StoreStats: Sendable, Hashable {
    /// Accepted postbacks, in all.
    public var postbacks: Int
    /// Accepted postbacks by framework and version.
    public var postbacksByKey: [PostbackCounterKey: Int]
    /// Refusals currently kept.
    public var rejected: Int
    /// Kept refusals by status.
    public var rejectedByStatus: [String: Int]
    /// Refusals the size cap removed to make room.
    public var rejectedDropped: Int
    /// Accepted postbacks that repeated one already stored (a device retries; an ad network resends), answered
    /// and not stored: the dashboard's duplicate rate.
    public var duplicates: Int
    /// Duplicates whose values Apple's signature does not cover differed from the stored postback's: kept in
    /// ``RepeatTable``, never counted in place of the first.
    public var conflicts: Int
    /// Of those, by the value that differed (``RepeatTable/compared`` names; a conflict counts under each value that
    /// differed, so these may add up to more than ``conflicts``).
    public var conflictsByField: [String: Int]

    /// Makes a set of counts.
    public init(postbacks: Int, postbacksByKey: [PostbackCounterKey: Int], rejected: Int, rejectedByStatus: [String: Int],
                rejectedDropped: Int, duplicates: Int = 0, conflicts: Int = 0, conflictsByField: [String: Int] = [:]) {
        self.postbacks = postbacks
        self.postbacksByKey = postbacksByKey
        self.rejected = rejected
        self.rejectedByStatus = rejectedByStatus
        self.rejectedDropped = rejectedDropped
        self.duplicates = duplicates
        self.conflicts = conflicts
        self.conflictsByField = conflictsByField
    }

    /// The share of accepted postbacks that were duplicates: ``duplicates`` over them and the stored ones; 0 when
    /// there were none.
    public var duplicateRate: Double {
        postbacks + duplicates == 0 ? 0 : Double(duplicates) / Double(postbacks + duplicates)
    }

    /// Accepted SKAdNetwork postbacks by version (`GET /stats`' `postbacks-by-version`): the one framework that
    /// sends versions today; another framework's name is never listed as a version.
    public var postbacksByVersion: [String: Int] {
        var counts: [String: Int] = [:]
        for (key, count) in postbacksByKey where count > 0 && key.framework == .skadnetwork {
            counts[key.version ?? "", default: 0] += count
        }
        return counts
    }

    /// Accepted postbacks by framework, whatever their versions.
    public var postbacksByFramework: [String: Int] {
        var counts: [String: Int] = [:]
        for (key, count) in postbacksByKey where count > 0 { counts[key.framework.rawValue, default: 0] += count }
        return counts
    }

    /// The counts as a JSON object.
    public var json: String {
        var writer = JSONWriter()
        writer.integer(JSONDocumentVersion.kebabCaseKey, JSONDocumentVersion.stats)
        writer.integer("postbacks", postbacks)
        writer.raw("postbacks-by-version", Self.object(postbacksByVersion))
        writer.raw("postbacks-by-framework", Self.object(postbacksByFramework))
        writer.integer("rejected", rejected)
        writer.raw("rejected-by-status", Self.object(rejectedByStatus))
        writer.integer("rejected-dropped", rejectedDropped)
        writer.integer("duplicates", duplicates)
        writer.integer("conflicts", conflicts)
        // Every compared value, at zero too: a reader need not know which have differed yet.
        var byField: [String: Int] = [:]
        for value in RepeatTable.compared { byField[value.name] = conflictsByField[value.name] ?? 0 }
        writer.raw("conflicts-by-field", Self.object(byField))
        return writer.json
    }

    private static func object(_ counts: [String: Int]) -> String {
        var writer = JSONWriter()
        for (key, value) in counts.sorted(by: { $0.key < $1.key }) { writer.integer(key, value) }
        return writer.json
    }
}
