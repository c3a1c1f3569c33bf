/// The fields of a postback in terms both frameworks share (DESIGN.md §1): what the store keeps, replies and
/// metrics read, and reports count, whichever framework sent it.
///
/// | Neutral | SKAdNetwork | AdAttributionKit |
/// |---|---|---|
/// | ``network`` | `ad-network-id` | `ad-network-identifier` |
/// | ``dedupID`` | `transaction-id` | `postback-identifier` |
/// | ``appID`` | `app-id` | `advertised-item-identifier` |
/// | ``campaign`` / ``sourceIdentifier`` | `campaign-id` (≤ 3.0) / `source-identifier` | `source-identifier` |
/// | ``sourceAppID`` / ``sourceDomain`` | `source-app-id` / `source-domain` | `publisher-item-identifier` |
/// | ``marketplace`` | none (the App Store) | `marketplace-identifier` |
/// | ``impressionType`` | none | `impression-type` |
/// | ``window`` | `postback-sequence-index` | `postback-sequence-index` |
/// | ``conversionType`` | `redownload` | `conversion-type` |
/// | ``interaction`` | `fidelity-type` | `ad-interaction-type` |
/// | ``frameworkVersion`` | `version` | none |
public struct AttributionFields: Sendable, Hashable {
    /// The ad network the postback is for.
    public var network: String
    /// Apple's unique id of the attribution: with the framework, the network and the window, the dedup key.
    public var dedupID: String
    /// The advertised app's App Store id.
    public var appID: Int
    /// SKAdNetwork 1.0–3.0's campaign number.
    public var campaign: Int?
    /// Two to four digits, kept as sent ("0039" is not "39").
    public var sourceIdentifier: String?
    /// The App Store id of the app that showed the ad, when the privacy tier allows it.
    public var sourceAppID: Int?
    /// The web site that showed the ad (SKAdNetwork 4.0 web ads).
    public var sourceDomain: String?
    /// The store the app came from (`com.apple.AppStore`, or an alternative marketplace), when the postback says.
    public var marketplace: String?
    /// What kind of impression won (`app-impression`), when the postback says.
    public var impressionType: String?
    /// The conversion window, 0–2; absent before SKAdNetwork 4.0.
    public var window: Int?
    /// Whether this postback's ad won the attribution; absent before SKAdNetwork 3.0.
    public var didWin: Bool?
    /// Download, redownload or re-engagement, when the postback says.
    public var conversionType: ConversionType?
    /// View or click, when the postback says.
    public var interaction: AdInteraction?
    /// The framework's version as sent (SKAdNetwork's `version`, "1.0" when the body had none).
    public var frameworkVersion: String?
    /// Whether the body stated its version (SKAdNetwork 1.0 postbacks first had no `version` key).
    public var statesVersion: Bool
    /// The fine conversion value 0–63; never signed.
    public var conversionValue: Int?
    /// The coarse conversion value; never signed.
    public var coarseValue: CoarseValue?
    /// Never signed.
    public var countryCode: String?
    /// The signature as received: SKAdNetwork's Base64 `attribution-signature`, AdAttributionKit's JWS.
    public var signature: String
    /// Members the framework does not define (relays add `timestamp`, `ip` ...), in the order received, as sent.
    public var extras: [JSONMember]

    /// Makes a set of fields.
    public init(network: String, dedupID: String, appID: Int, campaign: Int? = nil, sourceIdentifier: String? = nil,
                sourceAppID: Int? = nil, sourceDomain: String? = nil, marketplace: String? = nil,
                impressionType: String? = nil, window: Int? = nil, didWin: Bool? = nil,
                conversionType: ConversionType? = nil, interaction: AdInteraction? = nil,
                frameworkVersion: String? = nil, statesVersion: Bool = true, conversionValue: Int? = nil,
                coarseValue: CoarseValue? = nil, countryCode: String? = nil, signature: String,
                extras: [JSONMember] = []) {
        self.network = network
        self.dedupID = dedupID
        self.appID = appID
        self.campaign = campaign
        self.sourceIdentifier = sourceIdentifier
        self.sourceAppID = sourceAppID
        self.sourceDomain = sourceDomain
        self.marketplace = marketplace
        self.impressionType = impressionType
        self.window = window
        self.didWin = didWin
        self.conversionType = conversionType
        self.interaction = interaction
        self.frameworkVersion = frameworkVersion
        self.statesVersion = statesVersion
        self.conversionValue = conversionValue
        self.coarseValue = coarseValue
        self.countryCode = countryCode
        self.signature = signature
        self.extras = extras
    }
}
