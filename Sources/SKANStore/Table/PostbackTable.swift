import SKANCore

/// The one description of the `postbacks` table: every stored column in table order, read from the neutral
/// ``AcceptedPostback``. Engines make their insert from ``columns``, decode rows by these names, and export with
/// ``exportColumns`` as the header; their numbered migrations are history that must arrive at this list, which
/// a test of each engine checks.
public enum PostbackTable {
    /// The table's name.
    public static let name = "postbacks"
    /// The row id every engine adds before the columns: arrival order, and the export's order.
    public static let id = "id"

    public static let transactionID = PostbackColumn("transaction_id", .text) { .text($0.attribution.fields.dedupID) }
    public static let adNetworkID = PostbackColumn("ad_network_id", .text) { .text($0.attribution.fields.network) }
    /// The window as the dedup key uses it: 0 when the postback has none.
    public static let dedupSequenceIndex = PostbackColumn("dedup_sequence_index", .integer) { .integer($0.dedupKey.window) }
    /// The framework's version; AdAttributionKit has none.
    public static let version = PostbackColumn("version", .text, nullable: true) { .text($0.attribution.fields.frameworkVersion) }
    public static let hasVersionKey = PostbackColumn("has_version_key", .boolean) { .boolean($0.attribution.fields.statesVersion) }
    public static let campaignID = PostbackColumn("campaign_id", .integer, nullable: true) { .integer($0.attribution.fields.campaign) }
    public static let sourceIdentifier = PostbackColumn("source_identifier", .text, nullable: true) {
        .text($0.attribution.fields.sourceIdentifier)
    }
    public static let appID = PostbackColumn("app_id", .integer) { .integer($0.attribution.fields.appID) }
    /// `redownload` as SKAdNetwork sends it: true, false, or absent.
    public static let redownload = PostbackColumn("redownload", .boolean, nullable: true) {
        .boolean($0.attribution.fields.conversionType.flatMap { type -> Bool? in
            switch type {
            case .download: false
            case .redownload: true
            case .reengagement: nil
            }
        })
    }
    public static let sourceAppID = PostbackColumn("source_app_id", .integer, nullable: true) { .integer($0.attribution.fields.sourceAppID) }
    public static let sourceDomain = PostbackColumn("source_domain", .text, nullable: true) { .text($0.attribution.fields.sourceDomain) }
    public static let fidelityType = PostbackColumn("fidelity_type", .integer, nullable: true) {
        .integer($0.attribution.fields.interaction?.fidelityType)
    }
    public static let didWin = PostbackColumn("did_win", .boolean, nullable: true) { .boolean($0.attribution.fields.didWin) }
    public static let postbackSequenceIndex = PostbackColumn("postback_sequence_index", .integer, nullable: true) {
        .integer($0.attribution.fields.window)
    }
    public static let conversionValue = PostbackColumn("conversion_value", .integer, nullable: true) {
        .integer($0.attribution.fields.conversionValue)
    }
    public static let coarseConversionValue = PostbackColumn("coarse_conversion_value", .text, nullable: true) {
        .text($0.attribution.fields.coarseValue?.rawValue)
    }
    public static let countryCode = PostbackColumn("country_code", .text, nullable: true) { .text($0.attribution.fields.countryCode) }
    public static let attributionSignature = PostbackColumn("attribution_signature", .text) { .text($0.attribution.fields.signature) }
    /// Members the framework does not define, as one JSON object text; absent when there were none.
    public static let extras = PostbackColumn("extras", .text, nullable: true) { accepted in
        let extras = accepted.attribution.fields.extras
        guard !extras.isEmpty else { return .null }
        var writer = JSONWriter()
        for member in extras { writer.raw(member.key, member.value.jsonText) }
        return .text(writer.json)
    }
    public static let rawBody = PostbackColumn("raw_body", .blob) { .blob($0.rawBody) }
    public static let receivedAt = PostbackColumn("received_at", .text) { .text(Timestamp.iso8601($0.receivedAt)) }
    public static let keyName = PostbackColumn("key_name", .text) { .text($0.attribution.keyName) }
    /// How the signature was checked: the SKAdNetwork layout, or the AdAttributionKit key id.
    public static let layout = PostbackColumn("layout", .text) { .text($0.attribution.scheme) }
    public static let endpoint = PostbackColumn("endpoint", .text) { .text($0.endpoint) }
    public static let framework = PostbackColumn("framework", .text) { .text($0.attribution.framework.rawValue) }
    /// `download`, `redownload` or `re-engagement`: the neutral conversion type (``redownload`` is SKAdNetwork's).
    public static let conversionType = PostbackColumn("conversion_type", .text, nullable: true) {
        .text($0.attribution.fields.conversionType?.rawValue)
    }
    public static let marketplace = PostbackColumn("marketplace_identifier", .text, nullable: true) {
        .text($0.attribution.fields.marketplace)
    }
    public static let impressionType = PostbackColumn("impression_type", .text, nullable: true) {
        .text($0.attribution.fields.impressionType)
    }
    /// The client's address as the collector resolved it (``AcceptedPostback/clientAddress``), when it knew one: where
    /// the first copy of a conflict came from, whatever batch the repeat arrives in (issue 36). Empty for `skan
    /// ingest` and for a collector that resolves no address, so such a row pays one byte of its record's header.
    public static let clientAddress = PostbackColumn("client_address", .text, nullable: true) { .text($0.clientAddress) }

    /// Every stored column after ``id``, in table order.
    public static let columns: [PostbackColumn] = [
        transactionID, adNetworkID, dedupSequenceIndex, version, hasVersionKey, campaignID, sourceIdentifier, appID,
        redownload, sourceAppID, sourceDomain, fidelityType, didWin, postbackSequenceIndex, conversionValue,
        coarseConversionValue, countryCode, attributionSignature, extras, rawBody, receivedAt, keyName, layout,
        endpoint, framework, conversionType, marketplace, impressionType, clientAddress,
    ]

    /// The columns a migration added after both engines had the table (SQLite 0015, PostgreSQL 0012), at the end of
    /// ``columns``: a new store's table is made without them and gets them as an upgraded one does.
    public static let addedColumns: [PostbackColumn] = [clientAddress]

    /// The dedup key's columns: what makes two postbacks the same postback.
    public static let uniqueKey: [PostbackColumn] = [transactionID, adNetworkID, dedupSequenceIndex, framework]

    /// The export's columns, header first: the id, then every stored column.
    public static var exportColumns: [String] { [id] + columns.map(\.name) }
}
