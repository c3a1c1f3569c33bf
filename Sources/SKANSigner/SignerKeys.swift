import SKANCore

/// The private keys a signer holds: one per ad network id, and optionally one that signs for any id (a network
/// with a single registration). Keys never leave this value: replies and logs carry public keys only.
public struct SignerKeys: Sendable {
    private var byNetwork: [String: ECPrivateKey] = [:]
    private var fallback: ECPrivateKey?

    /// An empty set.
    public init() {}

    /// Adds `key` as the signing key of `network`, or of every network without its own key when `network` is nil.
    /// A later key for the same network replaces the earlier one (key rotation: the newest signs).
    public mutating func add(_ key: ECPrivateKey, network: String?) {
        if let network { byNetwork[network] = key } else { fallback = key }
    }

    /// The key that signs for `network`, if any.
    public func key(for network: String) -> ECPrivateKey? { byNetwork[network] ?? fallback }

    /// The ad network ids with a key of their own (an OpenRTB answer must name one of them).
    public var networks: Set<String> { Set(byNetwork.keys) }

    /// Whether any key is held.
    public var isEmpty: Bool { byNetwork.isEmpty && fallback == nil }

    /// The public halves, in the Base64 SubjectPublicKeyInfo form Apple's registration asks for, as a JSON array.
    public var publicKeysJSON: String {
        var entries: [(String?, ECPrivateKey)] = byNetwork.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if let fallback { entries.append((nil, fallback)) }
        return "[" + entries.map { network, key in
            var writer = JSONWriter()
            if let network { writer.string("ad-network-id", network) } else { writer.raw("ad-network-id", "null") }
            writer.string("curve", key.curve.description)
            writer.string("public-key", key.publicKey.base64)
            return writer.json
        }.joined(separator: ",") + "]"
    }
}
