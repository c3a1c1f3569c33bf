/// Writing an AdAttributionKit postback (spec §8.2), for whoever plays Apple's part: the device simulator and
/// tests. The signed members go in the JWS payload in the order of Apple's parameter page; the conversion values,
/// the interaction and the country go beside the JWS, unsigned.
extension AAKPostback {
    /// A postback to be signed: `jwsString` empty and `kid` set until ``body(jws:)`` writes it.
    public init(kid: String, adNetworkIdentifier: String, postbackIdentifier: String, advertisedItemIdentifier: Int,
                conversionType: ConversionType, impressionType: String? = "app-impression", didWin: Bool,
                postbackSequenceIndex: Int, sourceIdentifier: String, publisherItemIdentifier: Int? = nil,
                marketplaceIdentifier: String? = nil, conversionValue: Int? = nil,
                coarseConversionValue: CoarseValue? = nil, adInteractionType: AdInteraction? = nil,
                countryCode: String? = nil) {
        self.init(kid: kid, adNetworkIdentifier: adNetworkIdentifier, postbackIdentifier: postbackIdentifier,
                  advertisedItemIdentifier: advertisedItemIdentifier, conversionType: conversionType,
                  impressionType: impressionType, didWin: didWin, postbackSequenceIndex: postbackSequenceIndex,
                  sourceIdentifier: sourceIdentifier, publisherItemIdentifier: publisherItemIdentifier,
                  marketplaceIdentifier: marketplaceIdentifier, payloadExtras: [], conversionValue: conversionValue,
                  coarseConversionValue: coarseConversionValue, adInteractionType: adInteractionType,
                  countryCode: countryCode, jwsString: "", extras: [])
    }

    /// The JWS payload: the signed members, absent optional ones left out.
    public var payloadJSON: String {
        var writer = JSONWriter()
        writer.integer("advertised-item-identifier", advertisedItemIdentifier)
        writer.string("conversion-type", conversionType.rawValue)
        if let marketplaceIdentifier { writer.string("marketplace-identifier", marketplaceIdentifier) }
        writer.string("ad-network-identifier", adNetworkIdentifier)
        if let impressionType { writer.string("impression-type", impressionType) }
        writer.integer("postback-sequence-index", postbackSequenceIndex)
        writer.string("source-identifier", sourceIdentifier)
        writer.bool("did-win", didWin)
        writer.string("postback-identifier", postbackIdentifier)
        if let publisherItemIdentifier { writer.integer("publisher-item-identifier", publisherItemIdentifier) }
        return writer.json
    }

    /// The JWS signing input for ``payloadJSON`` under ``kid``: `BASE64URL(header) '.' BASE64URL(payload)`.
    public var signingInput: String {
        var header = JSONWriter()
        header.string("kid", kid)
        header.string("alg", "ES256")
        return Base64URL.encode(header.json.utf8) + "." + Base64URL.encode(payloadJSON.utf8)
    }

    /// The HTTP body a device posts: `jws-string`, then the unsigned members that are present.
    public func body(jws: String) -> String {
        var writer = JSONWriter()
        writer.string("jws-string", jws)
        if let conversionValue { writer.integer("conversion-value", conversionValue) }
        if let coarseConversionValue { writer.string("coarse-conversion-value", coarseConversionValue.rawValue) }
        if let adInteractionType { writer.string("ad-interaction-type", adInteractionType.rawValue) }
        if let countryCode { writer.string("country-code", countryCode) }
        return writer.json
    }
}
