import SKANCore

/// A placement: one network's ad of one kind in one source app or web domain.
public struct Ad: Sendable, Decodable {
    /// The ad network id.
    public var network: String
    /// StoreKit-rendered, view-through or web.
    public var kind: AdKind
    /// The app showing the ad.
    public var sourceAppID: Int?
    /// The web domain showing the ad (web ads).
    public var sourceDomain: String?
    /// 1.0–3.0.
    public var campaignID: Int?
    /// 4.0.
    public var sourceIdentifier: Int?
    /// How often this placement is shown relative to the others.
    public var weight: Double
    /// The chance that seeing this ad leads the person to install.
    public var installRate: Double
    /// A fixed privacy tier for installs this ad wins, overriding the campaign's mix.
    public var privacyTier: Int?
    /// SKAdNetwork (the default) or AdAttributionKit: how the network signs the impression and, when it wins,
    /// which postbacks the device sends.
    public var framework: Framework
    /// AdAttributionKit `eligible-for-re-engagement`: a tap by someone who has the app opens it.
    public var eligibleForReengagement: Bool
    /// The chance that a person who has the app taps this (eligible, click) ad and re-opens the app. Default 0.
    public var reengagementRate: Double

    /// How the person met the ad: a tap (StoreKit-rendered, web, or an AdAttributionKit click) or a view.
    public var interaction: AdInteraction { kind == .viewThrough ? .view : .click }

    enum CodingKeys: String, CodingKey {
        case network, kind, weight, framework
        case sourceAppID = "source-app-id", sourceDomain = "source-domain", campaignID = "campaign-id"
        case sourceIdentifier = "source-identifier", installRate = "install-rate", privacyTier = "privacy-tier"
        case eligibleForReengagement = "eligible-for-re-engagement", reengagementRate = "re-engagement-rate"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        network = try c.decode(String.self, forKey: .network)
        framework = c.contains(.framework) ? try c.decodeChoice(Framework.self, forKey: .framework) : .skadnetwork
        eligibleForReengagement = try c.decodeIfPresent(Bool.self, forKey: .eligibleForReengagement) ?? false
        reengagementRate = try c.decodeRate(forKey: .reengagementRate, in: 0...1, default: 0)
        kind = try c.decodeChoice(AdKind.self, forKey: .kind)
        sourceAppID = try c.decodeIfPresent(Int.self, forKey: .sourceAppID)
        if let sourceAppID, sourceAppID < 0 { throw c.invalid(.sourceAppID, "an App Store id of 0 or more, got \(sourceAppID)") }
        sourceDomain = try c.decodeIfPresent(String.self, forKey: .sourceDomain)
        campaignID = try c.decodeIfPresent(Int.self, forKey: .campaignID)
        sourceIdentifier = try c.decodeIfPresent(Int.self, forKey: .sourceIdentifier)
        weight = try c.decodeRate(forKey: .weight, in: 0...1_000_000, default: 1)
        installRate = try c.decodeRate(forKey: .installRate, in: 0...1, default: nil)
        privacyTier = try c.decodeIfPresent(Int.self, forKey: .privacyTier)
        if let privacyTier, !(0...3).contains(privacyTier) { throw c.invalid(.privacyTier, "a tier 0...3, got \(privacyTier)") }
    }
}
