/// An order of signed fields: the string Apple built and signed for a postback (spec §3.2).
public enum PostbackLayout: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `ad-network-id, campaign-id, app-id, transaction-id`.
    case v1_0 = "1.0"
    /// 2.0 and 2.1: `version … transaction-id, redownload, [source-app-id]`.
    case v2_0 = "2.0"
    /// 2.2: the 2.0 order plus `fidelity-type`.
    case v2_2 = "2.2"
    /// 3.0: the 2.2 order plus `did-win`.
    case v3_0 = "3.0"
    /// 4.0: `source-identifier` for `campaign-id`, `source-app-id` or `source-domain` in one slot,
    /// plus `postback-sequence-index`.
    case v4_0 = "4.0"
    /// A 2.2 postback that Apple signed with the 2.0/2.1 order, as some test-mode postbacks are
    /// (spec §10.7): `fidelity-type` is then only claimed, not signed.
    case v2_2SignedAs2_0 = "2.2-as-2.0"

    /// The fields in signing order. `source-app-id` and `source-domain` are signed only when present.
    public var fields: [PostbackField] {
        switch self {
        case .v1_0: [.adNetworkID, .campaignID, .appID, .transactionID]
        case .v2_0, .v2_2SignedAs2_0:
            [.version, .adNetworkID, .campaignID, .appID, .transactionID, .redownload, .sourceAppID]
        case .v2_2:
            [.version, .adNetworkID, .campaignID, .appID, .transactionID, .redownload, .sourceAppID, .fidelityType]
        case .v3_0:
            [.version, .adNetworkID, .campaignID, .appID, .transactionID, .redownload, .sourceAppID,
             .fidelityType, .didWin]
        case .v4_0:
            [.version, .adNetworkID, .sourceIdentifier, .appID, .transactionID, .redownload, .sourceAppID,
             .sourceDomain, .fidelityType, .didWin, .postbackSequenceIndex]
        }
    }

    /// Whether a match on this layout is a fallback that callers should hear about.
    public var isFallback: Bool { self == .v2_2SignedAs2_0 }

    public var description: String { rawValue }
}
