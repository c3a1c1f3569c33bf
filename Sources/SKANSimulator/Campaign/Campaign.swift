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
            let path = "ads[\(index)]"
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
            _ = path
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

/// The advertised app.
public struct AdvertisedApp: Sendable, Decodable {
    /// Its App Store id (`app-id` in postbacks).
    public var appID: Int
    /// `NSAdvertisingAttributionReportEndpoint`, when the developer wants copies of winning postbacks.
    public var reportEndpoint: String?
    /// The Info.plist keys AdAttributionKit reads (windows, cooldowns, re-engagement copies, overlapping
    /// conversions); all default as on a device without them.
    public var infoPlist = AdvertisedAppInfoPlist()

    enum CodingKeys: String, CodingKey {
        case appID = "app-id", reportEndpoint = "report-endpoint", infoPlist = "info-plist"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appID = try c.decodeInteger(forKey: .appID, in: 1...Int(Int32.max), default: nil)
        infoPlist = try c.decodeIfPresent(AdvertisedAppInfoPlist.self, forKey: .infoPlist) ?? AdvertisedAppInfoPlist()
        reportEndpoint = try c.decodeIfPresent(String.self, forKey: .reportEndpoint)
        if let endpoint = reportEndpoint, DeveloperCopy.url(forEndpoint: endpoint) == nil {
            throw c.invalid(.reportEndpoint, "an https:// URL such as \"https://example.com\", got \"\(endpoint)\"")
        }
    }
}

/// Where the simulated Apple private keys are.
public struct AppleKeys: Sendable, Decodable {
    /// P-256, for postbacks 2.1 and later.
    public var p256: String
    /// P-192, for postbacks 1.0 and 2.0.
    public var p192: String
    /// P-256, for AdAttributionKit postbacks (ES256); required when the campaign has AdAttributionKit ads.
    public var aak: String?
    /// The JWS `kid` AdAttributionKit postbacks carry, which `skan verify --aak-key KID=FILE` trusts. Default
    /// `simulated-apple-aak/0`: never one of Apple's kids, so Apple's keys never verify simulated postbacks.
    public var aakKid: String

    enum CodingKeys: String, CodingKey {
        case p256, p192, aak, aakKid = "aak-kid"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        p256 = try c.decode(String.self, forKey: .p256)
        p192 = try c.decode(String.self, forKey: .p192)
        aak = try c.decodeIfPresent(String.self, forKey: .aak)
        aakKid = try c.decodeIfPresent(String.self, forKey: .aakKid) ?? "simulated-apple-aak/0"
        if aakKid.isEmpty || aakKid.hasPrefix("apple-") {
            throw c.invalid(.aakKid, "a kid of your own such as \"simulated-apple-aak/0\" (not empty, not one of Apple's), got \"\(aakKid)\"")
        }
    }
}

/// An ad network: its id, its impression keys and where its postbacks go.
public struct AdNetwork: Sendable, Decodable {
    /// The registered id, lowercase.
    public var id: String
    /// PEM private key that signs its impressions (path relative to the campaign file), P-256 or P-192.
    public var privateKey: String
    /// PEM public key devices check impressions with, on the private key's curve.
    public var publicKey: String
    /// The postback URL the network registered with Apple.
    public var postbackURL: String

    enum CodingKeys: String, CodingKey {
        case id, privateKey = "private-key", publicKey = "public-key", postbackURL = "postback-url"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        if id.isEmpty || id != id.lowercased() {
            throw c.invalid(.id, "a lowercase ad network id such as \"example123.skadnetwork\", got \"\(id)\"")
        }
        privateKey = try c.decode(String.self, forKey: .privateKey)
        publicKey = try c.decode(String.self, forKey: .publicKey)
        postbackURL = try c.decode(String.self, forKey: .postbackURL)
        if !postbackURL.hasPrefix("https://") && !postbackURL.hasPrefix("http://") {
            throw c.invalid(.postbackURL, "an http(s):// URL, got \"\(postbackURL)\"")
        }
    }
}

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

/// An in-app event: how likely a launched user does it, when, and what it earns.
public struct FunnelEvent: Sendable, Decodable {
    /// The name conversion rules refer to.
    public var name: String
    /// The chance a device that launched the app does this.
    public var probability: Double
    /// Hours after first launch, drawn uniformly.
    public var delayHours: ClosedRange<Double>
    /// Revenue in the app's currency, drawn uniformly (0 when absent).
    public var revenue: ClosedRange<Double>

    enum CodingKeys: String, CodingKey {
        case name, probability, revenue, delayHours = "delay-hours"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        probability = try c.decodeRate(forKey: .probability, in: 0...1, default: nil)
        delayHours = try c.decodeRange(Double.self, forKey: .delayHours, within: 0...24 * 400)
        revenue = c.contains(.revenue) ? try c.decodeRange(Double.self, forKey: .revenue, within: 0...1_000_000) : 0...0
    }
}

/// One line of the conversion value schema: when an event (and enough total revenue) happens, the app sets
/// these values.
public struct ConversionRule: Sendable, Decodable {
    /// The event that triggers the rule.
    public var event: String
    /// The revenue the device must have reached in total, this event included.
    public var minimumRevenue: Double
    /// The fine value the app sets (0...63 is what devices accept; others are app bugs devices refuse).
    public var fine: Int?
    /// The coarse value the app sets (4.0).
    public var coarse: CoarseValue?
    /// Whether the app locks the current window (4.0 `lockWindow`).
    public var lock: Bool

    enum CodingKeys: String, CodingKey {
        case event, fine, coarse, lock, minimumRevenue = "min-revenue"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        event = try c.decode(String.self, forKey: .event)
        minimumRevenue = try c.decodeRate(forKey: .minimumRevenue, in: 0...1_000_000_000, default: 0)
        fine = try c.decodeIfPresent(Int.self, forKey: .fine)
        coarse = try c.decodeIfPresent(String.self, forKey: .coarse).map { text throws in
            guard let value = CoarseValue(rawValue: text) else { throw c.invalid(.coarse, "one of low, medium, high, got \"\(text)\"") }
            return value
        }
        lock = try c.decodeIfPresent(Bool.self, forKey: .lock) ?? false
        if fine == nil && coarse == nil { throw c.invalid(.fine, "a fine or a coarse value (the rule sets neither)") }
    }
}
