/// An AdAttributionKit postback as received (spec §8.2): the signed payload of its JWS, typed, and the unsigned
/// values beside it in the body.
public struct AAKPostback: Sendable, Hashable {
    /// The JWS header's key id: which of Apple's keys signed it.
    public var kid: String
    /// `ad-network-identifier` (signed).
    public var adNetworkIdentifier: String
    /// `postback-identifier` (signed): Apple's unique id of this postback, the dedup id.
    public var postbackIdentifier: String
    /// `advertised-item-identifier` (signed): the advertised app's App Store id.
    public var advertisedItemIdentifier: Int
    /// `conversion-type` (signed).
    public var conversionType: ConversionType
    /// `impression-type` (signed), e.g. `app-impression`.
    public var impressionType: String?
    /// `did-win` (signed).
    public var didWin: Bool
    /// `postback-sequence-index` (signed): the conversion window, 0–2.
    public var postbackSequenceIndex: Int
    /// `source-identifier` (signed): two to four digits, as sent.
    public var sourceIdentifier: String
    /// `publisher-item-identifier` (signed, tier-controlled): the app that showed the ad.
    public var publisherItemIdentifier: Int?
    /// `marketplace-identifier` (signed, tier-controlled).
    public var marketplaceIdentifier: String?
    /// Payload members the spec does not name, kept as signed.
    public var payloadExtras: [JSONMember]
    /// `conversion-value` (unsigned): 0–63.
    public var conversionValue: Int?
    /// `coarse-conversion-value` (unsigned).
    public var coarseConversionValue: CoarseValue?
    /// `ad-interaction-type` (unsigned): `view` or `click`.
    public var adInteractionType: AdInteraction?
    /// `country-code` (unsigned, top tier only).
    public var countryCode: String?
    /// The `jws-string` as received.
    public var jwsString: String
    /// Body members beside the JWS that the spec does not name (relays add some), in the order received.
    public var extras: [JSONMember]
}

/// A postback whose JWS a trusted key signed.
public struct VerifiedAAKPostback: Sendable, Hashable {
    /// The postback.
    public let postback: AAKPostback
    /// The name of the trusted key its kid found.
    public let keyName: String
    /// The payload's member names, in the order signed.
    public let signedFields: [String]
    /// The values present outside the signature (conversion values, interaction type, country): claims.
    public let claimedFields: [String]
}

extension AttributionFields {
    /// The neutral fields of an AdAttributionKit postback.
    public init(_ postback: AAKPostback) {
        self.init(network: postback.adNetworkIdentifier, dedupID: postback.postbackIdentifier,
                  appID: postback.advertisedItemIdentifier, sourceIdentifier: postback.sourceIdentifier,
                  sourceAppID: postback.publisherItemIdentifier, marketplace: postback.marketplaceIdentifier,
                  impressionType: postback.impressionType, window: postback.postbackSequenceIndex,
                  didWin: postback.didWin, conversionType: postback.conversionType,
                  interaction: postback.adInteractionType, frameworkVersion: nil, statesVersion: false,
                  conversionValue: postback.conversionValue, coarseValue: postback.coarseConversionValue,
                  countryCode: postback.countryCode, signature: postback.jwsString, extras: postback.extras)
    }
}
