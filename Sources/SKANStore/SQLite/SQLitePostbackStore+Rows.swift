import Foundation
import GRDB
import SKANCore

extension SQLitePostbackStore {
    static let insertPostback = """
        INSERT INTO postbacks (transaction_id, ad_network_id, dedup_sequence_index, version, has_version_key,
            campaign_id, source_identifier, app_id, redownload, source_app_id, source_domain, fidelity_type, did_win,
            postback_sequence_index, conversion_value, coarse_conversion_value, country_code, attribution_signature,
            extras, raw_body, received_at, key_name, layout, endpoint)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT DO NOTHING
        """

    static let insertRejection = """
        INSERT INTO rejected_postbacks (received_at, status, field, reason, version, transaction_id, ad_network_id,
            endpoint, body_length, raw_body)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Runs inside the writer's transaction: one insert per entry, then the rejection cap.
    static func write(_ entries: [StoreEntry], cap: RejectionCap, in db: Database) throws -> [StoreOutcome] {
        var outcomes: [StoreOutcome] = []
        outcomes.reserveCapacity(entries.count)
        var rejections = 0
        for entry in entries {
            switch entry {
            case .accepted(let accepted):
                let statement = try db.cachedStatement(sql: insertPostback)
                try statement.execute(arguments: arguments(accepted))
                // ON CONFLICT DO NOTHING changes no row for a repeat of the dedup key.
                outcomes.append(db.changesCount == 0 ? .duplicate : .stored)
            case .rejected(let rejected):
                let statement = try db.cachedStatement(sql: insertRejection)
                let body = rejected.rawBody.prefix(cap.maximumBodyBytes)
                try statement.execute(arguments: [
                    Timestamp.iso8601(rejected.receivedAt), rejected.status, rejected.field, rejected.reason,
                    rejected.version, rejected.transactionID, rejected.adNetworkID, rejected.endpoint,
                    rejected.rawBody.count, Data(body),
                ])
                rejections += 1
                outcomes.append(.rejectionRecorded)
            }
        }
        if rejections > 0 { try enforce(cap, in: db) }
        return outcomes
    }

    /// Deletes the oldest refusals past the cap. Ids only grow and only the oldest are deleted, so the rows kept
    /// are exactly those within `maximumRows` of the newest id: a range delete on the primary key, no count.
    private static func enforce(_ cap: RejectionCap, in db: Database) throws {
        try db.execute(sql: "DELETE FROM rejected_postbacks WHERE id <= (SELECT max(id) FROM rejected_postbacks) - ?",
                       arguments: [cap.maximumRows])
        let dropped = db.changesCount
        if dropped > 0 {
            try db.execute(sql: "UPDATE counters SET value = value + ? WHERE name = 'rejected_dropped'",
                           arguments: [dropped])
        }
    }

    private static func arguments(_ accepted: AcceptedPostback) -> StatementArguments {
        let postback = accepted.verified.postback
        var extras: String?
        if !postback.extras.isEmpty {
            var writer = JSONWriter()
            for member in postback.extras { writer.raw(member.key, member.value.jsonText) }
            extras = writer.json
        }
        let values: [(any DatabaseValueConvertible)?] = [
            postback.transactionID, postback.adNetworkID, postback.postbackSequenceIndex ?? 0,
            postback.version.rawValue, postback.hasVersionKey, postback.campaignID, postback.sourceIdentifier,
            postback.appID, postback.redownload, postback.sourceAppID, postback.sourceDomain, postback.fidelityType,
            postback.didWin, postback.postbackSequenceIndex, postback.conversionValue,
            postback.coarseConversionValue?.rawValue, postback.countryCode, postback.attributionSignature, extras,
            Data(accepted.rawBody), Timestamp.iso8601(accepted.receivedAt), accepted.verified.keyName,
            accepted.verified.layout.rawValue, accepted.endpoint,
        ]
        return StatementArguments(values)
    }

    static func storedPostback(_ row: Row) -> StoredPostback {
        let version = PostbackVersion(rawValue: row["version"]) ?? .v1_0
        let postback = Postback(
            version: version, hasVersionKey: row["has_version_key"], adNetworkID: row["ad_network_id"],
            campaignID: row["campaign_id"], sourceIdentifier: row["source_identifier"], appID: row["app_id"],
            transactionID: row["transaction_id"], redownload: row["redownload"], sourceAppID: row["source_app_id"],
            sourceDomain: row["source_domain"], fidelityType: row["fidelity_type"], didWin: row["did_win"],
            postbackSequenceIndex: row["postback_sequence_index"], conversionValue: row["conversion_value"],
            coarseConversionValue: (row["coarse_conversion_value"] as String?).flatMap(CoarseValue.init(rawValue:)),
            countryCode: row["country_code"], attributionSignature: row["attribution_signature"])
        let body: Data = row["raw_body"]
        return StoredPostback(postback: postback, extrasJSON: row["extras"], rawBody: [UInt8](body),
                              receivedAt: row["received_at"], keyName: row["key_name"], layout: row["layout"],
                              endpoint: row["endpoint"])
    }
}
