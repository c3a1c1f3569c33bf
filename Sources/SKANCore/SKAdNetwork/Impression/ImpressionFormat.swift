/// The three shapes in which a signed impression reaches a device (spec §2.2).
public enum ImpressionFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The `loadProduct(withParameters:)` dictionary of a StoreKit-rendered ad.
    case storeKitParameters = "storekit"
    /// The properties of an `SKAdImpression`, for view-through ads.
    case skAdImpression = "skadimpression"
    /// The web `AdImpressionResponse` JSON of SKAdNetwork for Web Ads.
    case webResponse = "web"

    /// The usual shape for an ad kind.
    public init(for kind: AdKind) {
        switch kind {
        case .storeKitRendered: self = .storeKitParameters
        case .viewThrough: self = .skAdImpression
        case .web: self = .webResponse
        }
    }

    /// The ad kind this shape implies when it is read back.
    public var kind: AdKind {
        switch self {
        case .storeKitParameters: .storeKitRendered
        case .skAdImpression: .viewThrough
        case .webResponse: .web
        }
    }

    /// One piece of an impression, named as the signed string names it.
    enum Role: CaseIterable {
        case version, adNetworkID, campaignID, sourceIdentifier, itunesItemID, nonce, sourceAppID, sourceDomain,
             timestamp, signature
    }

    /// The key this shape uses for a role, or `nil` when the shape has none.
    func key(_ role: Role) -> String? {
        switch self {
        case .storeKitParameters:
            switch role {
            case .version: "SKStoreProductParameterAdNetworkVersion"
            case .adNetworkID: "SKStoreProductParameterAdNetworkIdentifier"
            case .campaignID: "SKStoreProductParameterAdNetworkCampaignIdentifier"
            case .sourceIdentifier: "SKStoreProductParameterAdNetworkSourceIdentifier"
            case .itunesItemID: "SKStoreProductParameterITunesItemIdentifier"
            case .nonce: "SKStoreProductParameterAdNetworkNonce"
            case .sourceAppID: "SKStoreProductParameterAdNetworkSourceAppStoreIdentifier"
            case .sourceDomain: nil
            case .timestamp: "SKStoreProductParameterAdNetworkTimestamp"
            case .signature: "SKStoreProductParameterAdNetworkAttributionSignature"
            }
        case .skAdImpression:
            switch role {
            case .version: "version"
            case .adNetworkID: "adNetworkIdentifier"
            case .campaignID: "adCampaignIdentifier"
            case .sourceIdentifier: "sourceIdentifier"
            case .itunesItemID: "advertisedAppStoreItemIdentifier"
            case .nonce: "adImpressionIdentifier"
            case .sourceAppID: "sourceAppStoreItemIdentifier"
            case .sourceDomain: nil
            case .timestamp: "timestamp"
            case .signature: "signature"
            }
        case .webResponse:
            switch role {
            case .version: "version"
            case .adNetworkID: "ad_network_id"
            case .campaignID: nil
            case .sourceIdentifier: "source_identifier"
            case .itunesItemID: "itunes_item_id"
            case .nonce: "nonce"
            case .sourceAppID: nil
            case .sourceDomain: "source_domain"
            case .timestamp: "timestamp"
            case .signature: "signature"
            }
        }
    }

    /// Recognises the shape of a JSON object by its ad network key.
    static func detect(_ keys: Set<String>) -> ImpressionFormat? {
        allCases.first { format in format.key(.adNetworkID).map(keys.contains) ?? false }
    }

    public var description: String { rawValue }
}
