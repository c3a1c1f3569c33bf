/// An SKAdNetwork install-validation postback as received, every field typed (spec §3.1).
///
/// Parsing (``parse(_:)``) checks types and ranges but not the signature; a `Postback` is therefore
/// unverified until ``PostbackVerifier`` turns it into a ``VerifiedPostback``.
public struct Postback: Sendable, Hashable {
    /// The version, 1.0 when the postback has no `version` key.
    public var version: PostbackVersion
    /// Whether the body carried a `version` key (1.0 postbacks first had none; later ones say "1.0").
    public var hasVersionKey: Bool
    public var adNetworkID: String
    /// 1.0–3.0.
    public var campaignID: Int?
    /// 4.0: two to four digits, kept as the string it was sent as ("0039" is not "39").
    public var sourceIdentifier: String?
    public var appID: Int
    /// Apple's unique id for this validation; with the ad network and the sequence index, the dedup key.
    public var transactionID: String
    public var redownload: Bool?
    /// Absent below the privacy threshold and in non-winning postbacks; 0 in test mode (present, not absent).
    public var sourceAppID: Int?
    /// 4.0 web ads, in the source-app-id slot.
    public var sourceDomain: String?
    /// 0 view-through, 1 StoreKit-rendered or web.
    public var fidelityType: Int?
    public var didWin: Bool?
    /// 4.0: 0, 1 or 2, the conversion window.
    public var postbackSequenceIndex: Int?
    /// 0–63. Never signed: a claim, not a fact.
    public var conversionValue: Int?
    /// 4.0. Never signed.
    public var coarseConversionValue: CoarseValue?
    /// Never signed.
    public var countryCode: String?
    /// Base64 DER ECDSA signature, as received.
    public var attributionSignature: String
    /// Keys SKANKit does not know (relays add `timestamp`, `ip` ...), in the order received, kept as sent.
    public var extras: [JSONMember]

    /// Makes a postback from its fields; the simulator builds postbacks this way.
    public init(
        version: PostbackVersion, hasVersionKey: Bool? = nil, adNetworkID: String, campaignID: Int? = nil,
        sourceIdentifier: String? = nil, appID: Int, transactionID: String, redownload: Bool? = nil,
        sourceAppID: Int? = nil, sourceDomain: String? = nil, fidelityType: Int? = nil, didWin: Bool? = nil,
        postbackSequenceIndex: Int? = nil, conversionValue: Int? = nil, coarseConversionValue: CoarseValue? = nil,
        countryCode: String? = nil, attributionSignature: String = "", extras: [JSONMember] = []
    ) {
        self.version = version
        self.hasVersionKey = hasVersionKey ?? (version != .v1_0)
        self.adNetworkID = adNetworkID
        self.campaignID = campaignID
        self.sourceIdentifier = sourceIdentifier
        self.appID = appID
        self.transactionID = transactionID
        self.redownload = redownload
        self.sourceAppID = sourceAppID
        self.sourceDomain = sourceDomain
        self.fidelityType = fidelityType
        self.didWin = didWin
        self.postbackSequenceIndex = postbackSequenceIndex
        self.conversionValue = conversionValue
        self.coarseConversionValue = coarseConversionValue
        self.countryCode = countryCode
        self.attributionSignature = attributionSignature
        self.extras = extras
    }

    /// Whether a field is present.
    public func has(_ field: PostbackField) -> Bool {
        switch field {
        case .version: hasVersionKey
        case .adNetworkID, .appID, .transactionID, .attributionSignature: true
        case .campaignID: campaignID != nil
        case .sourceIdentifier: sourceIdentifier != nil
        case .redownload: redownload != nil
        case .sourceAppID: sourceAppID != nil
        case .sourceDomain: sourceDomain != nil
        case .fidelityType: fidelityType != nil
        case .didWin: didWin != nil
        case .postbackSequenceIndex: postbackSequenceIndex != nil
        case .conversionValue: conversionValue != nil
        case .coarseConversionValue: coarseConversionValue != nil
        case .countryCode: countryCode != nil
        }
    }

    /// The fields `layout` signs that this postback has, in order.
    public func signedFields(_ layout: PostbackLayout) -> [PostbackField] {
        layout.fields.filter { field in
            switch field {
            case .sourceAppID, .sourceDomain: has(field)
            default: true
            }
        }
    }

    /// The bytes Apple signs for this postback under `layout`.
    public func signedString(_ layout: PostbackLayout) -> SignedString {
        signedString(fields: signedFields(layout))
    }

    /// The bytes Apple signs for `fields`, which are ``signedFields(_:)`` of a layout (the verifier has them
    /// already and needs them again for its verdict).
    func signedString(fields: [PostbackField]) -> SignedString {
        var string = SignedString()
        for field in fields {
            switch field {
            case .version: string.append(version.rawValue)
            case .adNetworkID: string.append(adNetworkID)
            case .campaignID: string.append(Int64(campaignID ?? 0))
            case .sourceIdentifier: string.append(sourceIdentifier ?? "")
            case .appID: string.append(Int64(appID))
            case .transactionID: string.append(transactionID)
            case .redownload: string.append(redownload ?? false)
            case .sourceAppID: string.append(Int64(sourceAppID ?? 0))
            case .sourceDomain: string.append(sourceDomain ?? "")
            case .fidelityType: string.append(Int64(fidelityType ?? 0))
            case .didWin: string.append(didWin ?? false)
            case .postbackSequenceIndex: string.append(Int64(postbackSequenceIndex ?? 0))
            case .conversionValue, .coarseConversionValue, .countryCode, .attributionSignature:
                preconditionFailure("\(field) is never part of a signed layout")
            }
        }
        return string
    }

    /// The postback as JSON, known fields in spec order, then the extras as received.
    public var json: String {
        var writer = JSONWriter()
        if hasVersionKey { writer.string(PostbackField.version.key, version.rawValue) }
        writer.string(PostbackField.adNetworkID.key, adNetworkID)
        if let campaignID { writer.integer(PostbackField.campaignID.key, campaignID) }
        if let sourceIdentifier { writer.string(PostbackField.sourceIdentifier.key, sourceIdentifier) }
        writer.integer(PostbackField.appID.key, appID)
        writer.string(PostbackField.transactionID.key, transactionID)
        if let redownload { writer.bool(PostbackField.redownload.key, redownload) }
        if let sourceAppID { writer.integer(PostbackField.sourceAppID.key, sourceAppID) }
        if let sourceDomain { writer.string(PostbackField.sourceDomain.key, sourceDomain) }
        if let fidelityType { writer.integer(PostbackField.fidelityType.key, fidelityType) }
        if let didWin { writer.bool(PostbackField.didWin.key, didWin) }
        if let postbackSequenceIndex { writer.integer(PostbackField.postbackSequenceIndex.key, postbackSequenceIndex) }
        if let conversionValue { writer.integer(PostbackField.conversionValue.key, conversionValue) }
        if let coarseConversionValue { writer.string(PostbackField.coarseConversionValue.key, coarseConversionValue.rawValue) }
        if let countryCode { writer.string(PostbackField.countryCode.key, countryCode) }
        writer.string(PostbackField.attributionSignature.key, attributionSignature)
        for extra in extras { writer.raw(extra.key, extra.value.jsonText) }
        return writer.json
    }
}
