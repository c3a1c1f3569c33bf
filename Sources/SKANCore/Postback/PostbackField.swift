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

    /// The field for a JSON key, or `nil` for a key SKANKit does not know.
    ///
    /// Switches on the key's length before comparing, because this runs for every member of every postback
    /// and the synthesized `init(rawValue:)` compares against all sixteen names in turn.
    public init?(key: String) {
        let candidates: [PostbackField]
        switch key.utf8.count {
        case 6: candidates = [.appID]
        case 7: candidates = [.version, .didWin]
        case 10: candidates = [.redownload]
        case 11: candidates = [.campaignID]
        case 12: candidates = [.countryCode]
        case 13: candidates = [.adNetworkID, .sourceAppID, .sourceDomain, .fidelityType]
        case 14: candidates = [.transactionID]
        case 16: candidates = [.conversionValue]
        case 17: candidates = [.sourceIdentifier]
        case 21: candidates = [.attributionSignature]
        case 23: candidates = [.postbackSequenceIndex, .coarseConversionValue]
        default: return nil
        }
        guard let field = candidates.first(where: { $0.rawValue == key }) else { return nil }
        self = field
    }

    /// The JSON key.
    public var key: String { rawValue }
    public var description: String { rawValue }
}
