/// Judges AdAttributionKit postbacks (spec §8.2): a strict compact JWS, ES256 only, the key found by its `kid`
/// alone, the raw `r ‖ s` signature over the segments as received, then the payload typed and checked.
///
/// Order matters for the algorithm-confusion attacks on JWS: the header's `alg` must be `ES256` before any key is
/// looked up, and the key comes from the ring by kid, never from the header (`jwk`, `x5u` ... are not read), so
/// `none`, `HS256` keyed with a public key's bytes, or a key smuggled in the token cannot verify.
struct AAKVerifier: Sendable {
    let keyRing: KeyRing

    func verify(_ members: [JSONMember]) -> AttributionVerdict {
        var reader = AAKReader(members: members)
        do throws(AAKRefusal) {
            return try reader.verify(keyRing: keyRing)
        } catch {
            return .refused(AttributionRefusal(framework: .adAttributionKit, status: error.status, field: error.field,
                                               reason: error.reason, version: nil, dedupID: reader.dedupID,
                                               network: reader.network))
        }
    }
}

/// Why an AdAttributionKit postback was refused.
struct AAKRefusal: Error {
    let status: AttributionVerdict.Status
    let field: String?
    let reason: String

    static func malformed(_ field: AAKField?, _ reason: String) -> AAKRefusal {
        AAKRefusal(status: .malformed, field: field?.rawValue, reason: reason)
    }

    static func signature(_ reason: String) -> AAKRefusal {
        AAKRefusal(status: .invalidSignature, field: nil, reason: reason)
    }
}

/// One postback's reading, kept so that a refusal can still name the postback and network it saw.
private struct AAKReader {
    let members: [JSONMember]
    var dedupID: String?
    var network: String?

    init(members: [JSONMember]) { self.members = members }

    mutating func verify(keyRing: KeyRing) throws(AAKRefusal) -> AttributionVerdict {
        let outer = FieldValues(members: members, known: AAKField.outer, place: "the body")
        guard case .string(let jwsText)? = outer[.jwsString] else {
            throw .malformed(.jwsString, "jws-string must be a string, got \(outer[.jwsString]?.described ?? "nothing")")
        }
        let jws: CompactJWS
        switch CompactJWS.parse(jwsText) {
        case .success(let parsed): jws = parsed
        case .failure(let error): throw .malformed(.jwsString, error.reason)
        }
        let header = try Self.object(jws.header, part: "header")
        let payloadMembers = try Self.object(jws.payload, part: "payload")
        let payload = FieldValues(members: payloadMembers, known: AAKField.inPayload, place: "the JWS payload")
        // What identifies the postback is read first, so that every later refusal can be traced.
        if case .string(let text)? = payload[.postbackIdentifier] { dedupID = text }
        if case .string(let text)? = payload[.adNetworkIdentifier] { network = text }

        let kid = try Self.checkHeader(header)
        guard let trusted = keyRing.key(kid: kid) else {
            let known = keyRing.keys.compactMap(\.kid).map { JSONWriter.quoted($0) }.joined(separator: ", ")
            throw .signature("kid \(JSONWriter.quoted(Excerpt.of(kid, maximumBytes: 80))) is not a trusted "
                             + "AdAttributionKit key (trusted: \(known.isEmpty ? "none" : known))")
        }
        guard jws.signature.count == 64 else {
            let der = trusted.key.isDERSignature(jws.signature) ? " (DER: ES256 signatures are raw r ‖ s)" : ""
            throw .signature("an ES256 signature is 64 bytes, got \(jws.signature.count)\(der)")
        }
        guard trusted.key.isValidES256Signature(jws.signature, for: jws.signingInput) else {
            throw .signature("the JWS signature does not match its header and payload under \(trusted.name) (kid \(kid))")
        }
        let postback = try Self.postback(kid: kid, jws: jwsText, payload: payload, outer: outer)
        let claimed = AAKField.outer.dropFirst().filter { outer[$0] != nil && outer[$0] != .null }.map(\.rawValue)
        let verified = VerifiedAAKPostback(postback: postback, keyName: trusted.name,
                                           signedFields: payloadMembers.map(\.key), claimedFields: claimed)
        return .valid(VerifiedAttribution(framework: .adAttributionKit, fields: AttributionFields(postback),
                                          keyName: trusted.name, scheme: kid, note: nil,
                                          detail: .adAttributionKit(verified)))
    }

    /// A segment's JSON object, read as strictly as a postback body (duplicate keys, bad UTF-8 ... refused).
    static func object(_ bytes: [UInt8], part: String) throws(AAKRefusal) -> [JSONMember] {
        switch JSONObjectReader.members(of: bytes, knownKeys: AAKField.keyTable) {
        case .success(let members): return members
        case .failure(let error): throw .malformed(.jwsString, "the JWS \(part) is not a JSON object: \(error)")
        }
    }

    /// The header's kid, once `alg` is ES256 and nothing asks for an extension this verifier does not know.
    static func checkHeader(_ header: [JSONMember]) throws(AAKRefusal) -> String {
        let alg = header.first { $0.key == "alg" }?.value
        guard case .string("ES256")? = alg else {
            throw .signature("the JWS header's alg must be \"ES256\", got \(alg?.described ?? "nothing"); no other "
                             + "algorithm is accepted")
        }
        if header.contains(where: { $0.key == "crit" }) {
            throw .malformed(.jwsString, "the JWS header has crit: no JWS extension is understood here (RFC 7515 §4.1.11)")
        }
        guard case .string(let kid)? = header.first(where: { $0.key == "kid" })?.value, !kid.isEmpty else {
            throw .malformed(.jwsString, "the JWS header must name its key with a non-empty kid string")
        }
        return kid
    }

    static func postback(kid: String, jws: String, payload: FieldValues, outer: FieldValues) throws(AAKRefusal) -> AAKPostback {
        for field in AAKField.requiredInPayload where payload[field] == nil {
            throw .malformed(field, "\(field.rawValue) is required in the JWS payload and is missing")
        }
        let typeText = try payload.string(.conversionType)!
        guard let conversionType = ConversionType(rawValue: typeText) else {
            throw .malformed(.conversionType, "conversion-type must be download, redownload or re-engagement, got "
                             + JSONValue.string(typeText).described)
        }
        let sourceIdentifier = try payload.string(.sourceIdentifier)!
        guard (2...4).contains(sourceIdentifier.utf8.count), sourceIdentifier.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .malformed(.sourceIdentifier, "source-identifier must be a string of 2 to 4 digits, got "
                             + JSONValue.string(sourceIdentifier).described)
        }
        var interaction: AdInteraction?
        if let text = try outer.string(.adInteractionType, nullable: true) {
            guard let known = AdInteraction(rawValue: text) else {
                throw .malformed(.adInteractionType, "ad-interaction-type must be view or click, got "
                                 + JSONValue.string(text).described)
            }
            interaction = known
        }
        var coarse: CoarseValue?
        if let text = try outer.string(.coarseConversionValue, nullable: true) {
            guard let known = CoarseValue(rawValue: text) else {
                throw .malformed(.coarseConversionValue, "coarse-conversion-value must be low, medium or high, got "
                                 + JSONValue.string(text).described)
            }
            coarse = known
        }
        let postback = AAKPostback(
            kid: kid, adNetworkIdentifier: try payload.string(.adNetworkIdentifier)!,
            postbackIdentifier: try payload.string(.postbackIdentifier)!,
            advertisedItemIdentifier: try payload.integer(.advertisedItemIdentifier, 0...Int.max)!,
            conversionType: conversionType, impressionType: try payload.string(.impressionType),
            didWin: try payload.bool(.didWin)!, postbackSequenceIndex: try payload.integer(.postbackSequenceIndex, 0...2)!,
            sourceIdentifier: sourceIdentifier,
            publisherItemIdentifier: try payload.integer(.publisherItemIdentifier, 0...Int.max),
            marketplaceIdentifier: try payload.string(.marketplaceIdentifier), payloadExtras: payload.extras,
            conversionValue: try outer.integer(.conversionValue, 0...63, nullable: true),
            coarseConversionValue: coarse, adInteractionType: interaction,
            countryCode: try outer.string(.countryCode, nullable: true), jwsString: jws, extras: outer.extras)
        if postback.conversionValue != nil && postback.coarseConversionValue != nil {
            throw .malformed(.coarseConversionValue, "conversion-value and coarse-conversion-value are never sent together, got both")
        }
        return postback
    }
}

/// The members of one object by field, with the typed readers both parts of a postback use.
private struct FieldValues {
    /// By ``AAKField/ordinal``: an array, not a dictionary, whose hashing showed in profiles of this hot path.
    private var values = [JSONValue?](repeating: nil, count: AAKField.allCases.count)
    let extras: [JSONMember]
    let place: String

    init(members: [JSONMember], known: [AAKField], place: String) {
        var extras: [JSONMember] = []
        for member in members {
            if let field = AAKField(key: member.key), known.contains(field) {
                values[field.ordinal] = member.value
            } else {
                extras.append(member)
            }
        }
        self.extras = extras
        self.place = place
    }

    subscript(field: AAKField) -> JSONValue? { values[field.ordinal] }

    func string(_ field: AAKField, nullable: Bool = false) throws(AAKRefusal) -> String? {
        switch values[field.ordinal] {
        case nil: return nil
        case .null? where nullable: return nil
        case .string(let text)? where !text.isEmpty:
            guard !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                throw .malformed(field, "\(field.rawValue) contains a control character, got \(JSONValue.string(text).described)")
            }
            return text
        case let other?:
            throw .malformed(field, "\(field.rawValue) in \(place) must be a non-empty string, got \(other.described)")
        }
    }

    func integer(_ field: AAKField, _ range: ClosedRange<Int>, nullable: Bool = false) throws(AAKRefusal) -> Int? {
        switch values[field.ordinal] {
        case nil: return nil
        case .null? where nullable: return nil
        case .number(let text)?:
            guard let number = Int(text), range.contains(number) else {
                throw .malformed(field, "\(field.rawValue) in \(place) must be an integer in \(range.lowerBound)..."
                                 + "\(range.upperBound == Int.max ? "" : String(range.upperBound)), got \(text.prefix(80))")
            }
            return number
        case let other?:
            throw .malformed(field, "\(field.rawValue) in \(place) must be an integer, got \(other.described)")
        }
    }

    func bool(_ field: AAKField) throws(AAKRefusal) -> Bool? {
        switch values[field.ordinal] {
        case nil: return nil
        case .bool(let value)?: return value
        case let other?: throw .malformed(field, "\(field.rawValue) in \(place) must be true or false, got \(other.described)")
        }
    }
}
