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

    static let addToCounter = """
        INSERT INTO counters (name, value) VALUES (?, ?)
        ON CONFLICT (name) DO UPDATE SET value = value + excluded.value
        """

    /// Runs inside the writer's transaction: one insert per entry, the rejection cap, then the counters that
    /// `stats()` reads, so that they always agree with the rows committed beside them.
    static func write(_ entries: [StoreEntry], cap: RejectionCap, in db: Database) throws -> [StoreOutcome] {
        var outcomes: [StoreOutcome] = []
        outcomes.reserveCapacity(entries.count)
        var changes: [String: Int] = [:]
        // Per batch, not per row: the statement cache is keyed by the SQL text, hashed on every lookup.
        var insert: Statement?
        var storedByVersion: [PostbackVersion: Int] = [:]
        var rejections = 0
        for entry in entries {
            switch entry {
            case .accepted(let accepted):
                let statement = try insert ?? db.cachedStatement(sql: insertPostback)
                insert = statement
                // ON CONFLICT DO NOTHING changes no row for a repeat of the dedup key.
                if try row(accepted).run(statement, in: db) == 0 {
                    outcomes.append(.duplicate)
                } else {
                    outcomes.append(.stored)
                    storedByVersion[accepted.verified.postback.version, default: 0] += 1
                }
            case .rejected(let rejected):
                let statement = try db.cachedStatement(sql: insertRejection)
                let body = rejected.rawBody.prefix(cap.maximumBodyBytes)
                // Every value a client chose is cut, so that a row's size has the bound the cap states.
                let value = { (text: String) in Excerpt.of(text, maximumBytes: cap.maximumValueBytes) }
                try statement.execute(arguments: [
                    Timestamp.iso8601(rejected.receivedAt), rejected.status, rejected.field.map(value),
                    Excerpt.of(rejected.reason, maximumBytes: cap.maximumReasonBytes),
                    rejected.version.map(value), rejected.transactionID.map(value), rejected.adNetworkID.map(value),
                    value(rejected.endpoint), rejected.rawBody.count, Data(body),
                ])
                rejections += 1
                changes[StatCounter.rejectedPrefix + rejected.status, default: 0] += 1
                outcomes.append(.rejectionRecorded)
            }
        }
        for (version, count) in storedByVersion { changes[StatCounter.postbacksPrefix + version.rawValue] = count }
        if rejections > 0 { try enforce(cap, changes: &changes, in: db) }
        let add = try db.cachedStatement(sql: addToCounter)
        for (name, change) in changes where change != 0 {
            try add.execute(arguments: [name, change])
        }
        return outcomes
    }

    /// Deletes the oldest refusals past the cap. Ids only grow and only the oldest are deleted, so the rows kept
    /// are exactly those within `maximumRows` of the newest id: a range delete on the primary key, no count.
    /// The deleted rows come off their status counters and onto `rejected_dropped`.
    private static func enforce(_ cap: RejectionCap, changes: inout [String: Int], in db: Database) throws {
        let newest = try Int.fetchOne(db, sql: "SELECT max(id) FROM rejected_postbacks") ?? 0
        let boundary = newest - cap.maximumRows
        guard boundary > 0 else { return }
        let doomed = try Row.fetchAll(db, sql: "SELECT status, count(*) FROM rejected_postbacks WHERE id <= ? GROUP BY status",
                                      arguments: [boundary])
        guard !doomed.isEmpty else { return }
        var dropped = 0
        for row in doomed {
            let count: Int = row[1]
            changes[StatCounter.rejectedPrefix + (row[0] as String), default: 0] -= count
            dropped += count
        }
        try db.execute(sql: "DELETE FROM rejected_postbacks WHERE id <= ?", arguments: [boundary])
        changes[StatCounter.rejectedDropped, default: 0] += dropped
    }

    /// The columns of ``insertPostback``, in its order.
    private static func row(_ accepted: AcceptedPostback) -> RowBinding {
        let postback = accepted.verified.postback
        var extras: String?
        if !postback.extras.isEmpty {
            var writer = JSONWriter()
            for member in postback.extras { writer.raw(member.key, member.value.jsonText) }
            extras = writer.json
        }
        var row = RowBinding(capacity: 24)
        row.text(postback.transactionID)
        row.text(postback.adNetworkID)
        row.integer(postback.postbackSequenceIndex ?? 0)
        row.text(postback.version.rawValue)
        row.bool(postback.hasVersionKey)
        row.integer(postback.campaignID)
        row.text(postback.sourceIdentifier)
        row.integer(postback.appID)
        row.bool(postback.redownload)
        row.integer(postback.sourceAppID)
        row.text(postback.sourceDomain)
        row.integer(postback.fidelityType)
        row.bool(postback.didWin)
        row.integer(postback.postbackSequenceIndex)
        row.integer(postback.conversionValue)
        row.text(postback.coarseConversionValue?.rawValue)
        row.text(postback.countryCode)
        row.text(postback.attributionSignature)
        row.text(extras)
        row.blob(accepted.rawBody)
        row.text(Timestamp.iso8601(accepted.receivedAt))
        row.text(accepted.verified.keyName)
        row.text(accepted.verified.layout.rawValue)
        row.text(accepted.endpoint)
        return row
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
