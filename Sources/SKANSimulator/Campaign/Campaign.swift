import SKANCore

/// A campaign as a person writes it (`Samples/campaigns/*.json`): who advertises, which networks show which
/// ads where, how people respond, and how the app maps its in-app events to conversion values.
///
/// Decoded by ``CampaignFile``, which turns every decoding failure into an error naming the JSON path.
public struct Campaign: Sendable, Decodable {
    /// A name for summaries.
    public var name: String
    /// The SKAdNetwork version every ad of the campaign is signed with.
    public var version: ImpressionVersion
    /// When the first ad is shown, milliseconds since 1970 (`"start": "2026-03-02"` in the file).
    public var start: Int64
    /// Over how many days ads are shown.
    public var flightDays: Int
    /// How many devices a run simulates when `--devices` is not given.
    public var devices: Int
    /// The advertised app.
    public var advertisedApp: AdvertisedApp
    /// The simulated Apple private keys (file paths, relative to the campaign file).
    public var appleKeys: AppleKeys
    /// The ad networks taking part.
    public var adNetworks: [AdNetwork]
    /// The placements: which network shows what kind of ad where.
    public var ads: [Ad]
    /// How devices see ads and install.
    public var audience: Audience
    /// The share of installs in each privacy tier 0...3 (crowd anonymity, spec §3.3).
    public var privacyTiers: [Double]
    /// In-app events after first launch.
    public var events: [FunnelEvent]
    /// How events map to conversion values, first matching rule wins.
    public var conversionSchema: [ConversionRule]
    /// Choices where Apple's documentation is open (spec §11), with defaults.
    public var settings: SimulationSettings
    /// What sets this campaign apart from every other: a fingerprint of its file's bytes, set by
    /// ``CampaignFile/decode(_:source:)``. With the seed it keys the run's transaction ids, so two campaigns never
    /// share one; a program that changes a campaign after decoding and wants other ids changes this too.
    public var identity: UInt64 = 0

    enum CodingKeys: String, CodingKey {
        case name, version, start, devices, ads, audience, events, settings
        case flightDays = "flight-days", advertisedApp = "advertised-app", appleKeys = "apple-keys"
        case adNetworks = "ad-networks", privacyTiers = "privacy-tiers", conversionSchema = "conversion-schema"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        version = try c.decodeChoice(ImpressionVersion.self, forKey: .version)
        let startText = try c.decode(String.self, forKey: .start)
        guard let start = SimulatedTime.parse(startText) else {
            throw c.invalid(.start, "a UTC date like \"2026-03-02\" or \"2026-03-02T09:00:00Z\", got \"\(startText)\"")
        }
        self.start = start
        flightDays = try c.decodeInteger(forKey: .flightDays, in: 1...365, default: 14)
        devices = try c.decodeInteger(forKey: .devices, in: 1...100_000_000, default: 10_000)
        advertisedApp = try c.decode(AdvertisedApp.self, forKey: .advertisedApp)
        appleKeys = try c.decode(AppleKeys.self, forKey: .appleKeys)
        adNetworks = try c.decode([AdNetwork].self, forKey: .adNetworks)
        if adNetworks.isEmpty { throw c.invalid(.adNetworks, "at least one ad network") }
        ads = try c.decode([Ad].self, forKey: .ads)
        if ads.isEmpty { throw c.invalid(.ads, "at least one ad") }
        audience = try c.decodeIfPresent(Audience.self, forKey: .audience) ?? Audience()
        privacyTiers = try Self.decodeTiers(c)
        events = try c.decodeIfPresent([FunnelEvent].self, forKey: .events) ?? []
        conversionSchema = try c.decodeIfPresent([ConversionRule].self, forKey: .conversionSchema) ?? []
        settings = try c.decodeIfPresent(SimulationSettings.self, forKey: .settings) ?? SimulationSettings()
        try checkReferences(c)
    }

    private static func decodeTiers(_ c: KeyedDecodingContainer<CodingKeys>) throws -> [Double] {
        guard c.contains(.privacyTiers) else { return [0, 0, 0, 1] }
        let mix = try c.decode([String: Double].self, forKey: .privacyTiers)
        var shares = [Double](repeating: 0, count: 4)
        for (key, share) in mix {
            guard let tier = Int(key), (0...3).contains(tier) else {
                throw c.invalid(.privacyTiers, "keys \"0\" to \"3\" (privacy tiers), got \"\(key)\"")
            }
            guard share >= 0 else { throw c.invalid(.privacyTiers, "shares of 0 or more, got \(share) for tier \(key)") }
            shares[tier] = share
        }
        if shares.reduce(0, +) <= 0 { throw c.invalid(.privacyTiers, "at least one tier with a share above 0") }
        return shares
    }

    /// Cross-field rules: ads name known networks and carry the identifiers their version and kind need.
    private func checkReferences(_ c: KeyedDecodingContainer<CodingKeys>) throws {
        let networkIDs = Set(adNetworks.map(\.id))
        if networkIDs.count != adNetworks.count { throw c.invalid(.adNetworks, "each network id once") }
        for (index, ad) in ads.enumerated() {
            func fail(_ field: String, _ expected: String) -> DecodingError {
                DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [CodingKeys.ads, IndexKey(index), AnyKey(field)],
                                                  debugDescription: "expected \(expected)"))
            }
            if !networkIDs.contains(ad.network) {
                throw fail("network", "one of the ad-networks ids (\(adNetworks.map(\.id).joined(separator: ", "))), got \"\(ad.network)\"")
            }
            if ad.framework == .adAttributionKit {
                try checkAdAttributionKit(ad, fail: fail)
                continue
            }
            if ad.eligibleForReengagement {
                throw fail("eligible-for-re-engagement", "false or absent: only AdAttributionKit ads re-engage (add \"framework\": \"adattributionkit\")")
            }
            if version.usesSourceIdentifier {
                guard let sourceIdentifier = ad.sourceIdentifier else { throw fail("source-identifier", "a source-identifier 10...9999 for version \(version)") }
                if !(10...9999).contains(sourceIdentifier) { throw fail("source-identifier", "an integer 10...9999, got \(sourceIdentifier)") }
            } else {
                guard let campaignID = ad.campaignID else { throw fail("campaign-id", "a campaign-id 1...100 for version \(version)") }
                if !(1...100).contains(campaignID) { throw fail("campaign-id", "an integer 1...100, got \(campaignID)") }
            }
            if ad.kind == .web {
                if version < .v4_0 { throw fail("kind", "storekit-rendered or view-through: web ads need version 4.0, the campaign is \(version)") }
                if ad.sourceDomain == nil { throw fail("source-domain", "a domain for a web ad") }
            } else if ad.sourceAppID == nil && version.hasVersionAndSource {
                throw fail("source-app-id", "the App Store id of the app showing the ad")
            }
            if ad.kind == .viewThrough && version < .v2_2 {
                throw fail("kind", "storekit-rendered: view-through ads need version 2.2 or later, the campaign is \(version)")
            }
        }
        if ads.contains(where: { $0.framework == .adAttributionKit }) && appleKeys.aak == nil {
            throw c.invalid(.appleKeys, "an \"aak\" key (the simulated Apple key that signs AdAttributionKit postbacks) for a campaign with AdAttributionKit ads")
        }
    }

    /// AdAttributionKit ads (spec §8.1): a 2–4 digit source identifier, the publisher app (0 for a development
    /// impression), a click or a view; re-engagement only from clicks on eligible ads.
    private func checkAdAttributionKit(_ ad: Ad, fail: (String, String) -> DecodingError) throws {
        guard let sourceIdentifier = ad.sourceIdentifier else { throw fail("source-identifier", "a source-identifier 10...9999 for an AdAttributionKit ad") }
        if !(10...9999).contains(sourceIdentifier) { throw fail("source-identifier", "an integer 10...9999 (2 to 4 digits), got \(sourceIdentifier)") }
        if ad.sourceAppID == nil { throw fail("source-app-id", "the App Store id of the app showing the ad (publisher-item-identifier; 0 for a development impression)") }
        if ad.kind == .web { throw fail("kind", "storekit-rendered (a click) or view-through (a view): AdAttributionKit has no web ads") }
        if ad.reengagementRate > 0 && !(ad.eligibleForReengagement && ad.kind != .viewThrough) {
            throw fail("re-engagement-rate", "0 unless the ad is a click with \"eligible-for-re-engagement\": true (re-engagement comes only from taps), got \(ad.reengagementRate)")
        }
    }
}
