import Foundation

/// An AdAttributionKit impression (spec §8.1): what an ad network signs as a compact JWS, ES256, with its ad network
/// id as the `kid`, and the app passes to `AppImpression(compactJWS:)`.
public struct AAKImpression: Sendable, Hashable {
    /// `impression-identifier`: a UUID (any case; AdAttributionKit has no lowercase rule).
    public var impressionIdentifier: String
    /// `publisher-item-identifier`: the App Store id of the app showing the ad; 0 for a development impression.
    public var publisherItemIdentifier: Int
    /// `impression-type`: `app-impression`.
    public var impressionType: String
    /// `ad-network-identifier`, also the JWS `kid`.
    public var adNetworkIdentifier: String
    /// `source-identifier`: 2 to 4 digits, an integer.
    public var sourceIdentifier: Int
    /// `timestamp`: milliseconds since 1970.
    public var timestamp: Int64
    /// `advertised-item-identifier`: the advertised app's App Store id.
    public var advertisedItemIdentifier: Int
    /// `eligible-for-re-engagement`, when set: a click may re-engage a user who has the app.
    public var eligibleForReengagement: Bool?

    /// Makes an impression.
    public init(impressionIdentifier: String, publisherItemIdentifier: Int, impressionType: String = "app-impression",
                adNetworkIdentifier: String, sourceIdentifier: Int, timestamp: Int64, advertisedItemIdentifier: Int,
                eligibleForReengagement: Bool? = nil) {
        self.impressionIdentifier = impressionIdentifier
        self.publisherItemIdentifier = publisherItemIdentifier
        self.impressionType = impressionType
        self.adNetworkIdentifier = adNetworkIdentifier
        self.sourceIdentifier = sourceIdentifier
        self.timestamp = timestamp
        self.advertisedItemIdentifier = advertisedItemIdentifier
        self.eligibleForReengagement = eligibleForReengagement
    }

    /// The names ``init(values:origin:now:makeNonce:)`` reads, as `skan sign` spells its options.
    public static let fieldNames = ["ad-network-id", "source-identifier", "itunes-item-id", "source-app-id", "nonce",
                                    "timestamp", "eligible-for-re-engagement"]

    /// An impression from named text values, by the same rules for every front end (the command line, a signing
    /// service): `source-app-id` defaults to 0 (development), `nonce` to a new UUID, `timestamp` to `now()`. Errors
    /// name the field (after `origin`), the value and what was expected.
    public init(values: [String: String], origin: String = "", now: () -> Date = Date.init,
                makeNonce: () -> UUID = UUID.random) throws(SKANError) {
        let named = NamedValues(values: values, origin: origin)
        let network = try named.required("ad-network-id")
        var eligible: Bool?
        switch values["eligible-for-re-engagement"] {
        case nil: eligible = nil
        case "true"?: eligible = true
        case "false"?: eligible = false
        case let other?:
            throw SKANError(.invalidImpression, "\(origin)eligible-for-re-engagement must be true or false, got \"\(other)\"")
        }
        self.init(impressionIdentifier: values["nonce"] ?? makeNonce().uuidString,
                  publisherItemIdentifier: try named.integer("source-app-id") ?? 0, adNetworkIdentifier: network,
                  sourceIdentifier: try named.requiredInteger("source-identifier"),
                  timestamp: Int64(try named.integer("timestamp") ?? Int(now().timeIntervalSince1970 * 1000)),
                  advertisedItemIdentifier: try named.requiredInteger("itunes-item-id"), eligibleForReengagement: eligible)
    }

    /// The payload as JSON, members in Apple's documented order.
    public var payloadJSON: String {
        var writer = JSONWriter()
        writer.string("impression-identifier", impressionIdentifier)
        writer.integer("publisher-item-identifier", publisherItemIdentifier)
        writer.string("impression-type", impressionType)
        writer.string("ad-network-identifier", adNetworkIdentifier)
        writer.integer("source-identifier", sourceIdentifier)
        writer.integer("timestamp", timestamp)
        writer.integer("advertised-item-identifier", advertisedItemIdentifier)
        if let eligibleForReengagement { writer.bool("eligible-for-re-engagement", eligibleForReengagement) }
        return writer.json
    }

    /// Checks what a device checks before it takes the impression, naming the field.
    public func validate() throws(SKANError) {
        guard UUID(uuidString: impressionIdentifier) != nil else {
            throw SKANError(.invalidImpression, "impression-identifier must be a UUID, got \"\(Excerpt.of(impressionIdentifier, maximumBytes: 80))\"")
        }
        guard (0...9999).contains(sourceIdentifier) else {
            throw SKANError(.invalidImpression, "source-identifier must have 2 to 4 digits (0...9999), got \(sourceIdentifier)")
        }
        guard !adNetworkIdentifier.isEmpty, adNetworkIdentifier == adNetworkIdentifier.lowercased() else {
            throw SKANError(.invalidImpression, "ad-network-identifier must be your registered id, lowercase, got \"\(adNetworkIdentifier)\"")
        }
        guard publisherItemIdentifier >= 0, advertisedItemIdentifier > 0, timestamp > 0 else {
            throw SKANError(.invalidImpression, "publisher-item-identifier must be 0 or more, advertised-item-identifier and timestamp positive")
        }
    }

    /// The signed impression as a compact JWS, under the ad network's id as the kid.
    public func signed(with key: ECPrivateKey) throws(SKANError) -> String {
        try validate()
        return try signed(validatedWith: key)
    }

    /// The same for an impression whose fields the caller has just checked (``ImpressionBatch``).
    func signed(validatedWith key: ECPrivateKey) throws(SKANError) -> String {
        try CompactJWS.es256(payload: payloadJSON, kid: adNetworkIdentifier, key: key)
    }

    /// Judges a signed impression with the ad network's public key, as a device does: strict JWS, `alg` ES256,
    /// the `kid` equal to the payload's ad network, the signature, then the fields: the impression, or why not.
    public static func verify(_ jws: String, publicKey: ECPublicKey) -> Result<AAKImpression, SKANError> {
        judge(jws, publicKey: publicKey).mapError { SKANError(.invalidImpression, $0.reason) }
    }

    /// ``verify(_:publicKey:)`` with the kind of each refusal, as ``SignedAttributionImpression`` reports it: a
    /// token that is not a JWS of typed members is malformed, one the key did not sign as this network's has an
    /// invalid signature, and a signed one whose values break the rules has invalid fields.
    static func judge(_ jws: String, publicKey: ECPublicKey) -> Result<AAKImpression, ImpressionRefusal> {
        func refuse(_ kind: ImpressionRefusal.Kind, _ reason: String) -> Result<AAKImpression, ImpressionRefusal> {
            .failure(ImpressionRefusal(kind, reason))
        }
        let parsed: CompactJWS
        switch CompactJWS.parse(jws) {
        case .success(let value): parsed = value
        case .failure(let error): return refuse(.malformed, error.reason)
        }
        guard case .success(let header) = JSONObjectReader.members(of: parsed.header),
              case .success(let payload) = JSONObjectReader.members(of: parsed.payload) else {
            return refuse(.malformed, "the JWS header or payload is not a strict JSON object")
        }
        func value(_ members: [JSONMember], _ key: String) -> JSONValue? { members.first { $0.key == key }?.value }
        guard case .string("ES256")? = value(header, "alg") else {
            return refuse(.invalidSignature, "the JWS header's alg must be \"ES256\", got \(value(header, "alg")?.described ?? "nothing")")
        }
        guard case .string(let kid)? = value(header, "kid") else { return refuse(.malformed, "the JWS header has no kid string") }
        guard publicKey.isValidES256Signature(parsed.signature, for: parsed.signingInput) else {
            return refuse(.invalidSignature, "the signature does not match the impression under this key (ES256, raw r ‖ s, 64 bytes)")
        }
        func integer(_ key: String) -> Int? { if case .number(let text)? = value(payload, key) { Int(text) } else { nil } }
        func string(_ key: String) -> String? { if case .string(let text)? = value(payload, key) { text } else { nil } }
        var eligible: Bool?
        if let member = value(payload, "eligible-for-re-engagement") {
            guard case .bool(let flag) = member else { return refuse(.malformed, "eligible-for-re-engagement must be true or false") }
            eligible = flag
        }
        guard let identifier = string("impression-identifier"), let network = string("ad-network-identifier"),
              let type = string("impression-type"), let source = integer("source-identifier"),
              let publisher = integer("publisher-item-identifier"), let advertised = integer("advertised-item-identifier"),
              let timestamp = integer("timestamp") else {
            return refuse(.malformed, "the payload needs impression-identifier, publisher-item-identifier, impression-type, "
                          + "ad-network-identifier, source-identifier, timestamp and advertised-item-identifier, typed")
        }
        guard kid == network else {
            return refuse(.invalidSignature, "the kid \(JSONWriter.quoted(kid)) is not the payload's ad-network-identifier \(JSONWriter.quoted(network))")
        }
        let impression = AAKImpression(impressionIdentifier: identifier, publisherItemIdentifier: publisher,
                                       impressionType: type, adNetworkIdentifier: network, sourceIdentifier: source,
                                       timestamp: Int64(timestamp), advertisedItemIdentifier: advertised,
                                       eligibleForReengagement: eligible)
        do { try impression.validate() } catch { return refuse(.invalidFields, error.reason) }
        return .success(impression)
    }
}
