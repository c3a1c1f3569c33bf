/// The Apple framework a postback came through. Both send postbacks for the same installs to the same network;
/// a body is recognised once, at verification (``AttributionVerifier``), and everything downstream reads the
/// framework-neutral ``VerifiedAttribution``.
public enum Framework: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// SKAdNetwork 1.0–4.0: a JSON object whose `attribution-signature` signs a string of its fields.
    case skadnetwork
    /// AdAttributionKit (iOS 17.4 and later): a compact JWS in a `jws-string` member.
    case adAttributionKit = "adattributionkit"

    /// A framework by the name a person types (`--framework`, a signing request's `"framework"`): its raw value,
    /// or `aak`, the short name the command line took first, kept as an alias.
    public init?(name: String) {
        if name == "aak" { self = .adAttributionKit; return }
        self.init(rawValue: name)
    }

    /// The names ``init(name:)`` takes, for messages and help.
    public static let names = allCases.map(\.rawValue) + ["aak"]

    /// The framework as Apple writes its name, for messages.
    public var title: String {
        switch self {
        case .skadnetwork: "SKAdNetwork"
        case .adAttributionKit: "AdAttributionKit"
        }
    }

    /// The member that carries the signature: where a refusal for a bad signature points.
    public var signatureField: String {
        switch self {
        case .skadnetwork: "attribution-signature"
        case .adAttributionKit: "jws-string"
        }
    }

    /// The versions a postback of this framework may state, for metrics labels that must stay a fixed set.
    public var versions: [String] {
        switch self {
        case .skadnetwork: SKANVersion.allCases.map(\.rawValue)
        case .adAttributionKit: []
        }
    }

    /// Which framework sent `members`: a top-level `jws-string` means AdAttributionKit (spec §8), anything
    /// else is judged as SKAdNetwork.
    static func recognise(_ members: [JSONMember]) -> Framework {
        let key = Framework.adAttributionKit.signatureField
        // Lengths first: most members differ in length, and this runs for every postback.
        return members.contains { $0.key.utf8.count == key.utf8.count && $0.key == key } ? .adAttributionKit : .skadnetwork
    }

    public var description: String { rawValue }
}
