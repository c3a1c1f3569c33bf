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
        let field: PostbackField
        switch key.utf8.count {
        case 6: field = .appID
        case 7: field = key == "version" ? .version : .didWin
        case 10: field = .redownload
        case 11: field = .campaignID
        case 12: field = .countryCode
        case 13:
            switch key.utf8.first {
            case UInt8(ascii: "a"): field = .adNetworkID
            case UInt8(ascii: "f"): field = .fidelityType
            default: field = key.utf8.dropFirst(7).first == UInt8(ascii: "a") ? .sourceAppID : .sourceDomain
            }
        case 14: field = .transactionID
        case 16: field = .conversionValue
        case 17: field = .sourceIdentifier
        case 21: field = .attributionSignature
        case 23: field = key.utf8.first == UInt8(ascii: "p") ? .postbackSequenceIndex : .coarseConversionValue
        default: return nil
        }
        // The length and a letter pick the only candidate; one comparison confirms it.
        guard field.rawValue == key else { return nil }
        self = field
    }

    /// The field's position in ``allCases`` (declaration order), for tables indexed by field: a switch
    /// compiles to a jump table where a dictionary would hash.
    public var ordinal: Int {
        switch self {
        case .version: 0
        case .adNetworkID: 1
        case .campaignID: 2
        case .sourceIdentifier: 3
        case .appID: 4
        case .transactionID: 5
        case .redownload: 6
        case .sourceAppID: 7
        case .sourceDomain: 8
        case .fidelityType: 9
        case .didWin: 10
        case .postbackSequenceIndex: 11
        case .conversionValue: 12
        case .coarseConversionValue: 13
        case .countryCode: 14
        case .attributionSignature: 15
        }
    }

    /// Every field's key, and the envelope's `postback` key, for ``JSONObjectReader/members(of:knownKeys:)``.
    public static let keyTable = JSONKeyTable(allCases.map(\.key) + [PostbackEnvelope.postbackKey])

    /// The JSON key.
    public var key: String { rawValue }
    public var description: String { rawValue }
}
