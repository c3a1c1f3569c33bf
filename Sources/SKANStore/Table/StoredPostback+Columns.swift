import SKANCore

extension StoredPostback {
    /// A stored row in neutral terms, read by ``PostbackTable``'s columns: every engine decodes through this, so
    /// that the mapping from columns to fields is written once.
    ///
    /// `value` gives a column's value as the engine read it (booleans as 0 or 1).
    public init(reading value: (PostbackColumn) -> ColumnValue) {
        func text(_ column: PostbackColumn) -> String? { value(column).text }
        func integer(_ column: PostbackColumn) -> Int? { value(column).integer }
        func boolean(_ column: PostbackColumn) -> Bool? { value(column).boolean }
        let fields = AttributionFields(
            network: text(PostbackTable.adNetworkID) ?? "", dedupID: text(PostbackTable.transactionID) ?? "",
            appID: integer(PostbackTable.appID) ?? 0, campaign: integer(PostbackTable.campaignID),
            sourceIdentifier: text(PostbackTable.sourceIdentifier), sourceAppID: integer(PostbackTable.sourceAppID),
            sourceDomain: text(PostbackTable.sourceDomain), marketplace: text(PostbackTable.marketplace),
            impressionType: text(PostbackTable.impressionType), window: integer(PostbackTable.postbackSequenceIndex),
            didWin: boolean(PostbackTable.didWin),
            conversionType: text(PostbackTable.conversionType).flatMap(ConversionType.init(rawValue:)),
            interaction: integer(PostbackTable.fidelityType).flatMap(AdInteraction.init(fidelityType:)),
            frameworkVersion: text(PostbackTable.version), statesVersion: boolean(PostbackTable.hasVersionKey) ?? false,
            conversionValue: integer(PostbackTable.conversionValue),
            coarseValue: text(PostbackTable.coarseConversionValue).flatMap(CoarseValue.init(rawValue:)),
            countryCode: text(PostbackTable.countryCode), signature: text(PostbackTable.attributionSignature) ?? "")
        var body: [UInt8] = []
        if case .blob(let bytes) = value(PostbackTable.rawBody) { body = bytes }
        self.init(
            framework: text(PostbackTable.framework).flatMap(Framework.init(rawValue:)) ?? .skadnetwork, fields: fields,
            extrasJSON: text(PostbackTable.extras), rawBody: body,
            receivedAt: text(PostbackTable.receivedAt) ?? "", keyName: text(PostbackTable.keyName) ?? "",
            layout: text(PostbackTable.layout) ?? "", endpoint: text(PostbackTable.endpoint) ?? "")
    }
}
