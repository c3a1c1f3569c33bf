import Foundation

/// An ad impression as an ad network signs it and a device checks it (spec §2).
public struct Impression: Sendable, Hashable {
    public var version: ImpressionVersion
    public var kind: AdKind
    /// The ad network's registered id, lowercase (`example123.skadnetwork`).
    public var adNetworkID: String
    /// 1.0–3.0: 1...100.
    public var campaignID: Int?
    /// 4.0: two to four digits, 10...9999.
    public var sourceIdentifier: Int?
    /// The advertised app's App Store id.
    public var itunesItemID: Int
    /// Signed as the lowercase canonical UUID string.
    public var nonce: UUID
    /// The App Store id of the app showing the ad; 0 for development impressions. Not for web ads.
    public var sourceAppID: Int?
    /// Web ads: the eTLD+1 of the page showing the ad.
    public var sourceDomain: String?
    /// Milliseconds since 1970, when the network prepared the ad.
    public var timestamp: Int64

    /// Makes an impression; ``validate()`` says whether its fields fit its version and kind.
    public init(
        version: ImpressionVersion, kind: AdKind = .storeKitRendered, adNetworkID: String,
        campaignID: Int? = nil, sourceIdentifier: Int? = nil, itunesItemID: Int, nonce: UUID = .random(),
        sourceAppID: Int? = nil, sourceDomain: String? = nil, timestamp: Int64
    ) {
        self.version = version
        self.kind = kind
        self.adNetworkID = adNetworkID
        self.campaignID = campaignID
        self.sourceIdentifier = sourceIdentifier
        self.itunesItemID = itunesItemID
        self.nonce = nonce
        self.sourceAppID = sourceAppID
        self.sourceDomain = sourceDomain
        self.timestamp = timestamp
    }

    /// The signed `fidelity-type`: 0 view-through, 1 StoreKit-rendered and web.
    public var fidelityType: Int { kind.fidelityType }

    /// The nonce as it is signed: lowercase.
    public var nonceText: String { nonce.lowercaseText }

    /// The signed field names in order, as Apple's pages spell them for this version and kind.
    public var signedFieldNames: [String] {
        var names: [String] = []
        if version.hasVersionAndSource { names.append("version") }
        names += ["ad-network-id", version.usesSourceIdentifier ? "source-identifier" : "campaign-id", "itunes-item-id", "nonce"]
        if version.hasVersionAndSource { names.append(kind == .web ? "source-domain" : "source-app-id") }
        if version.signsFidelity { names.append("fidelity-type") }
        names.append("timestamp")
        return names
    }

    /// The bytes the ad network signs.
    public var signedString: SignedString {
        var string = SignedString()
        if version.hasVersionAndSource { string.append(version.rawValue) }
        string.append(adNetworkID)
        string.append(Int64(version.usesSourceIdentifier ? sourceIdentifier ?? 0 : campaignID ?? 0))
        string.append(Int64(itunesItemID))
        string.append(nonceText)
        if version.hasVersionAndSource {
            if kind == .web { string.append(sourceDomain ?? "") } else { string.append(Int64(sourceAppID ?? 0)) }
        }
        if version.signsFidelity { string.append(Int64(fidelityType)) }
        string.append(timestamp)
        return string
    }

    /// Checks the fields against the rules a device applies (spec §2, StoreKit Test's `SKAdTestError` codes).
    public func validate() throws(SKANError) {
        func fail(_ reason: String) -> SKANError { SKANError(.invalidImpression, reason) }
        try Self.checkText("ad-network-id", adNetworkID)
        if adNetworkID != adNetworkID.lowercased() {
            // Apple registers ad network ids in lower case; no source says how a device treats another spelling.
            throw fail("ad-network-id \"\(adNetworkID)\" is not a registered ad network id: those are lowercase, "
                       + "such as \"example123.skadnetwork\"")
        }
        if kind == .viewThrough && version < .v2_2 {
            throw fail("view-through impressions need version 2.2 or later, got \(version)")
        }
        if kind == .web && version < .v4_0 {
            throw fail("web ad impressions need version 4.0, got \(version)")
        }
        if version.usesSourceIdentifier {
            guard let sourceIdentifier else { throw fail("source-identifier is required from version 4.0") }
            guard (10...9999).contains(sourceIdentifier) else {
                throw fail("source-identifier must have 2 to 4 digits (10...9999), got \(sourceIdentifier)")
            }
            if campaignID != nil { throw fail("campaign-id is replaced by source-identifier in version 4.0") }
        } else {
            guard let campaignID else { throw fail("campaign-id is required up to version 3.0") }
            guard (1...100).contains(campaignID) else {
                throw fail("campaign-id must be an integer 1...100, got \(campaignID)")
            }
            if sourceIdentifier != nil { throw fail("source-identifier exists only from version 4.0, got version \(version)") }
        }
        guard itunesItemID >= 0 else { throw fail("itunes-item-id must not be negative, got \(itunesItemID)") }
        guard timestamp > 0 else { throw fail("timestamp must be milliseconds since 1970, got \(timestamp)") }
        if kind == .web {
            guard let sourceDomain else { throw fail("source-domain is required for web ads") }
            try Self.checkText("source-domain", sourceDomain)
            if sourceAppID != nil { throw fail("web ads carry source-domain, not source-app-id") }
        } else if version.hasVersionAndSource {
            guard let sourceAppID else { throw fail("source-app-id is required from version 2.0 (0 for development)") }
            guard sourceAppID >= 0 else { throw fail("source-app-id must not be negative, got \(sourceAppID)") }
            if sourceDomain != nil { throw fail("source-domain is only for web ads") }
        } else if sourceAppID != nil || sourceDomain != nil {
            throw fail("version 1.0 impressions carry no source-app-id or source-domain")
        }
    }

    static func checkText(_ name: String, _ value: String) throws(SKANError) {
        if value.isEmpty { throw SKANError(.invalidImpression, "\(name) must not be empty") }
        if value.unicodeScalars.contains("\u{2063}") {
            throw SKANError(.invalidImpression, "\(name) contains U+2063, the separator of the signed string")
        }
    }
}
