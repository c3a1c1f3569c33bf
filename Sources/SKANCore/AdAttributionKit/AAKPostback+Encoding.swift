/// Writing an AdAttributionKit postback (spec §8.2), for whoever plays Apple's part: the device simulator and
/// tests. The signed members go in the JWS payload in the order of Apple's parameter page; the conversion values,
/// the interaction and the country go beside the JWS, unsigned. Written as bytes: the simulator writes a million.
extension AAKPostback {
    /// A postback to be signed: `jwsString` empty and `kid` set until a body is written.
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
        var out: [UInt8] = []
        appendPayload(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``payloadJSON`` to `out`.
    public func appendPayload(to out: inout [UInt8]) {
        var members = MemberWriter()
        members.integer("advertised-item-identifier", advertisedItemIdentifier, to: &out)
        members.string("conversion-type", conversionType.rawValue, to: &out)
        if let marketplaceIdentifier { members.string("marketplace-identifier", marketplaceIdentifier, to: &out) }
        members.string("ad-network-identifier", adNetworkIdentifier, to: &out)
        if let impressionType { members.string("impression-type", impressionType, to: &out) }
        members.integer("postback-sequence-index", postbackSequenceIndex, to: &out)
        members.string("source-identifier", sourceIdentifier, to: &out)
        members.literal("did-win", didWin ? "true" : "false", to: &out)
        members.string("postback-identifier", postbackIdentifier, to: &out)
        if let publisherItemIdentifier { members.integer("publisher-item-identifier", publisherItemIdentifier, to: &out) }
        members.finish(&out)
    }

    /// The JWS signing input under ``kid``: `BASE64URL(header) '.' BASE64URL(payload)`.
    public var signingInput: [UInt8] {
        var input = CompactJWS.es256HeaderSegment(kid: kid)
        appendSigningInput(payloadTo: &input)
        return input
    }

    /// Appends `'.' BASE64URL(payload)` to `input`, which holds the header segment.
    public func appendSigningInput(payloadTo input: inout [UInt8]) {
        var payload: [UInt8] = []
        payload.reserveCapacity(400)
        appendPayload(to: &payload)
        input.append(UInt8(ascii: "."))
        Base64URL.append(payload, to: &input)
    }

    /// The HTTP body a device posts: `jws-string` (the signing input, `.`, the base64url raw signature), then the
    /// unsigned members that are present.
    public func body(signingInput: [UInt8], signature: [UInt8]) -> String {
        var out: [UInt8] = []
        appendBody(signingInput: signingInput, signature: signature, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``body(signingInput:signature:)`` to `out`.
    public func appendBody(signingInput: [UInt8], signature: [UInt8], to out: inout [UInt8]) {
        var members = MemberWriter()
        members.key("jws-string", to: &out)
        out.append(UInt8(ascii: "\""))
        out += signingInput
        out.append(UInt8(ascii: "."))
        Base64URL.append(signature, to: &out)
        out.append(UInt8(ascii: "\""))
        if let conversionValue { members.integer("conversion-value", conversionValue, to: &out) }
        if let coarseConversionValue { members.string("coarse-conversion-value", coarseConversionValue.rawValue, to: &out) }
        if let adInteractionType { members.string("ad-interaction-type", adInteractionType.rawValue, to: &out) }
        if let countryCode { members.string("country-code", countryCode, to: &out) }
        members.finish(&out)
    }
}

/// Members of one JSON object appended to the caller's buffer (never a copy of it: the simulator appends to a
/// run of many records).
private struct MemberWriter {
    private var first = true

    mutating func key(_ name: String, to out: inout [UInt8]) {
        out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
        first = false
        JSONWriter.appendQuoted(name, to: &out)
        out.append(UInt8(ascii: ":"))
    }

    mutating func string(_ name: String, _ value: String, to out: inout [UInt8]) {
        key(name, to: &out)
        JSONWriter.appendQuoted(value, to: &out)
    }

    mutating func integer(_ name: String, _ value: Int, to out: inout [UInt8]) {
        key(name, to: &out)
        JSONWriter.appendInteger(Int64(value), to: &out)
    }

    mutating func literal(_ name: String, _ text: StaticString, to out: inout [UInt8]) {
        key(name, to: &out)
        JSONWriter.appendLiteral(text, to: &out)
    }

    func finish(_ out: inout [UInt8]) {
        out.append(UInt8(ascii: "}"))
    }
}
