/// The keys of an SKAdNetwork postback that SKANKit reads (spec §3.1). Any other key is kept as an
/// extra, unsigned and unchecked beyond JSON syntax.
public enum PostbackField: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case version
    case adNetworkID = "ad-network-id"
    case campaignID = "campaign-id"
    case sourceIdentifier = "source-identifier"
    case appID = "app-id"
    case transactionID = "transaction-id"
    case redownload
    case sourceAppID = "source-app-id"
    case sourceDomain = "source-domain"
    case fidelityType = "fidelity-type"
    case didWin = "did-win"
    case postbackSequenceIndex = "postback-sequence-index"
    case conversionValue = "conversion-value"
    case coarseConversionValue = "coarse-conversion-value"
    case countryCode = "country-code"
    case attributionSignature = "attribution-signature"

    /// The JSON key.
    public var key: String { rawValue }
    public var description: String { rawValue }

    static let byKey: [String: PostbackField] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}
