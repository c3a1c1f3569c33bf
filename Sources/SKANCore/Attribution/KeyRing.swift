/// A public key trusted to sign postbacks, with a name that verification results report.
public struct TrustedKey: Sendable {
    /// How results and logs refer to the key ("apple-p256", a file name ...).
    public let name: String
    /// The key.
    public let key: ECPublicKey
    /// The key id a JWS header names it by (AdAttributionKit's `kid`), when it has one.
    public let kid: String?

    /// Names a key, and gives it a key id when a JWS header will look it up by one.
    ///
    /// A trusted key judges every postback of its kind for the life of the process, so a P-256 key is prepared
    /// for that here (``ECPublicKey/forRepeatedVerification()``: a precomputed table, about three times as fast).
    public init(name: String, key: ECPublicKey, kid: String? = nil) {
        self.name = name
        self.key = key.forRepeatedVerification()
        self.kid = kid
    }
}

/// The keys an ``AttributionVerifier`` trusts, found two ways: by curve for SKAdNetwork, whose version decides the
/// curve (P-192 keys judge 1.0 and 2.0 postbacks, P-256 keys 2.1 and later), and by key id for AdAttributionKit,
/// whose JWS header names its key (`kid`). A postback never brings its own key.
///
/// Defaults to Apple's two keys (``apple``). Callers replace them (a rotation of Apple's keys, a test
/// that must not trust Apple) or add to them (the simulator's keys, a third party's test keys).
public struct KeyRing: Sendable {
    /// Every trusted key, in the order they are tried.
    public private(set) var keys: [TrustedKey]
    private var byCurve: [ECCurve: [TrustedKey]] = [:]
    private var byKid: [String: TrustedKey] = [:]

    /// Makes a ring of the given keys.
    public init(_ keys: [TrustedKey] = []) {
        self.keys = []
        for key in keys { add(key) }
    }

    /// The keys without a kid on one curve, in the order they are tried.
    public func keys(on curve: ECCurve) -> [TrustedKey] { byCurve[curve] ?? [] }

    /// The key with this key id, if the ring trusts one: an unknown kid finds nothing, never a default.
    public func key(kid: String) -> TrustedKey? { byKid[kid] }

    /// Trusts one more key; it is tried after the ones already here. A key id already in the ring now names
    /// this key.
    ///
    /// A key with a kid is found only by its kid, a key without one only by its curve: Apple signs the two
    /// frameworks with different keys, and neither framework's postbacks may be judged with the other's.
    public mutating func add(_ key: TrustedKey) {
        keys.append(key)
        if let kid = key.kid {
            byKid[kid] = key
        } else {
            byCurve[key.key.curve, default: []].append(key)
        }
    }

    /// Replaces every key found by `key`'s curve with `key` alone (how `--apple-key-p256` works); keys found by
    /// kid stay.
    public mutating func replaceKeys(onCurveOf key: TrustedKey) {
        keys.removeAll { $0.kid == nil && $0.key.curve == key.key.curve }
        byCurve[key.key.curve] = nil
        add(key)
    }

    /// Apple's SKAdNetwork postback keys as Apple publishes them (Base64 SubjectPublicKeyInfo).
    /// `Keys/apple/` holds the same keys as PEM, and a test pins the two together.
    public enum AppleKey {
        /// P-192, for postback versions 1.0 and 2.0 (SKAdNetwork 1 and 2 release notes).
        public static let p192Base64 =
            "MEkwEwYHKoZIzj0CAQYIKoZIzj0DAQEDMgAEMyHD625uvsmGq4C43cQ9BnfN2xslVT5V1nOmAMP6qaRRUll3PB1JYmgSm+62sosG"
        /// P-256, for postback versions 2.1 and later ("Verifying an install-validation postback").
        public static let p256Base64 =
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEWdp8GPcGqmhgzEFj9Z2nSpQVddayaPe4FMzqM9wib1+aHaaIzoHoLN9zW4K8y4SPykE3YVK3sVqW6Af0lfx3gg=="
        /// The kid of AdAttributionKit production postbacks, signed with ``p256Base64``.
        public static let aakProductionKid = "apple-cas-identifier/0"
        /// AdAttributionKit `apple-development-identifier/0`.
        public static let aakDevelopment0Base64 =
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAELeEDzpJEP+/qRSE5hJVC1p1J0ssUnQGMzBBbvnACBok8OVGGLgxL0myrKiy6lvRtSlLRsWit87i+vftD8AEqeQ=="
        /// AdAttributionKit `apple-development-identifier/1`.
        public static let aakDevelopment1Base64 =
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE8YzdO7eM97s/IJ25kdW5CZ3A14USE5IJ5Ha/vhWaxI6UBI1ZxCEvjrKxVluVGe6qWwF1BDFq+QHqKfH5u+wxHQ=="
    }

    /// Apple's production keys: SKAdNetwork's two (`apple-p192`, `apple-p256`) and AdAttributionKit's
    /// `apple-cas-identifier/0` (the same P-256 key, found by its kid, named `apple-aak`).
    public static let apple: KeyRing = {
        // These constants are checked by tests; a failure here is a programming error, not input.
        let p192 = try! ECPublicKey(text: AppleKey.p192Base64, source: "Apple P-192 key")
        // Prepared once here, so that the SKAdNetwork and AdAttributionKit entries share one table.
        let p256 = try! ECPublicKey(text: AppleKey.p256Base64, source: "Apple P-256 key").forRepeatedVerification()
        return KeyRing([TrustedKey(name: "apple-p192", key: p192), TrustedKey(name: "apple-p256", key: p256),
                        TrustedKey(name: "apple-aak", key: p256, kid: AppleKey.aakProductionKid)])
    }()

    /// Apple's two AdAttributionKit development keys (spec §4): `apple-development-identifier/0` signs
    /// development postbacks of end-to-end flows, `/1` those made in Settings > Developer. Never trusted by
    /// default: a production collector must refuse them (`--aak-development` adds them).
    public static let appleAdAttributionKitDevelopment: [TrustedKey] = [
        TrustedKey(name: "apple-aak-development-0", key: try! ECPublicKey(text: AppleKey.aakDevelopment0Base64,
                   source: "Apple AdAttributionKit development key 0"), kid: "apple-development-identifier/0"),
        TrustedKey(name: "apple-aak-development-1", key: try! ECPublicKey(text: AppleKey.aakDevelopment1Base64,
                   source: "Apple AdAttributionKit development key 1"), kid: "apple-development-identifier/1"),
    ]
}
