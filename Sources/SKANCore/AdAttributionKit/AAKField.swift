/// The members of an AdAttributionKit postback: signed ones in the JWS payload, unsigned ones in the body.
enum AAKField: String, CaseIterable {
    // The body.
    case jwsString = "jws-string"
    case conversionValue = "conversion-value"
    case coarseConversionValue = "coarse-conversion-value"
    case adInteractionType = "ad-interaction-type"
    case countryCode = "country-code"
    // The payload.
    case adNetworkIdentifier = "ad-network-identifier"
    case postbackIdentifier = "postback-identifier"
    case advertisedItemIdentifier = "advertised-item-identifier"
    case conversionType = "conversion-type"
    case impressionType = "impression-type"
    case didWin = "did-win"
    case postbackSequenceIndex = "postback-sequence-index"
    case sourceIdentifier = "source-identifier"
    case publisherItemIdentifier = "publisher-item-identifier"
    case marketplaceIdentifier = "marketplace-identifier"

    /// The field's position in ``allCases``, by a switch (`firstIndex` would search for every member read).
    var ordinal: Int {
        switch self {
        case .jwsString: 0
        case .conversionValue: 1
        case .coarseConversionValue: 2
        case .adInteractionType: 3
        case .countryCode: 4
        case .adNetworkIdentifier: 5
        case .postbackIdentifier: 6
        case .advertisedItemIdentifier: 7
        case .conversionType: 8
        case .impressionType: 9
        case .didWin: 10
        case .postbackSequenceIndex: 11
        case .sourceIdentifier: 12
        case .publisherItemIdentifier: 13
        case .marketplaceIdentifier: 14
        }
    }

    /// The fields' keys in ``allCases`` order, so a key's index in the table is its field's ``ordinal``: matched
    /// from the bytes, where the `String` switch of `init(rawValue:)` showed in profiles of the verify path.
    static let keyTable = JSONKeyTable(allCases.map(\.rawValue))

    /// The field whose key is `key`, by the key table.
    init?(key: String) {
        guard let index = Self.keyTable.index(of: key) else { return nil }
        self = Self.byOrdinal[index]
    }

    /// ``allCases`` stored once (the synthesized property builds a new array at each call).
    private static let byOrdinal = allCases

    /// The body's members beside the JWS.
    static let outer: [AAKField] = [.jwsString, .conversionValue, .coarseConversionValue, .adInteractionType, .countryCode]
    /// The payload's members.
    static let inPayload: [AAKField] = allCases.filter { !outer.contains($0) }
    /// What a payload must have.
    static let requiredInPayload: [AAKField] = [.adNetworkIdentifier, .postbackIdentifier, .advertisedItemIdentifier,
                                                .conversionType, .didWin, .postbackSequenceIndex, .sourceIdentifier]
}
