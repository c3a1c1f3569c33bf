/// A postback version SKANKit knows how to verify.
public typealias PostbackVersion = SKANVersion

extension SKANVersion {
    /// The version a postback states: no `version` key means 1.0 (the first postbacks had none).
    /// An unknown version is `nil`, never guessed.
    public init?(wire: String?) {
        guard let wire else { self = .v1_0; return }
        self.init(rawValue: wire)
    }

    /// Apple's key curve for postbacks of this version: P-192 for 1.0 and 2.0, P-256 from 2.1 (spec §4).
    public var curve: ECCurve { self <= .v2_0 ? .p192 : .p256 }

    /// The field order Apple signs for postbacks of this version (spec §3.2).
    public var layout: PostbackLayout {
        switch self {
        case .v1_0: .v1_0
        case .v2_0, .v2_1: .v2_0
        case .v2_2: .v2_2
        case .v3_0: .v3_0
        case .v4_0: .v4_0
        }
    }

    /// The field orders a verifier tries, in turn: the version's own, and for 2.2 then the 2.0/2.1 order that
    /// some 2.2 postbacks are signed with (spec §10.7). Constant arrays, so nothing is allocated per postback.
    public var layoutsToTry: [PostbackLayout] {
        switch self {
        case .v1_0: [.v1_0]
        case .v2_0, .v2_1: [.v2_0]
        case .v2_2: [.v2_2, .v2_2SignedAs2_0]
        case .v3_0: [.v3_0]
        case .v4_0: [.v4_0]
        }
    }

    /// The keys Apple defines for postbacks of this version (spec §3.1), `country-code` included (its version is not
    /// stated). The parser keeps any known key whatever the version, and a key the version's layout does not sign
    /// leaves the signature intact, so a key outside this set is reported by `skan report --integrity`, not refused.
    public var definedFields: Set<PostbackField> {
        var fields: Set<PostbackField> = [.adNetworkID, self >= .v4_0 ? .sourceIdentifier : .campaignID, .appID,
                                          .transactionID, .attributionSignature, .countryCode]
        if self >= .v2_0 { fields.formUnion([.version, .redownload, .sourceAppID, .conversionValue]) }
        if self >= .v2_2 { fields.insert(.fidelityType) }
        if self >= .v3_0 { fields.insert(.didWin) }
        if self >= .v4_0 { fields.formUnion([.postbackSequenceIndex, .coarseConversionValue, .sourceDomain]) }
        return fields
    }

    /// The fields a postback of this version must carry.
    public var requiredFields: [PostbackField] {
        var fields: [PostbackField] = [.adNetworkID, self >= .v4_0 ? .sourceIdentifier : .campaignID,
                                       .appID, .transactionID, .attributionSignature]
        if self >= .v2_0 { fields += [.version, .redownload] }
        if self >= .v2_2 { fields.append(.fidelityType) }
        if self >= .v3_0 { fields.append(.didWin) }
        if self >= .v4_0 { fields.append(.postbackSequenceIndex) }
        return fields
    }
}
