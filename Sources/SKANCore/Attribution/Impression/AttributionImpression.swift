import Foundation

/// An impression of either framework, read from a request or a device's token and not yet signed: the one place
/// below ``ImpressionRequest`` where the frameworks part, as ``AttributionVerifier`` is for postbacks.
public enum AttributionImpression: Sendable, Hashable {
    /// An SKAdNetwork impression and the JSON shape its signed form is written in (`nil`: its ad kind's).
    case skadnetwork(Impression, format: ImpressionFormat?)
    /// An AdAttributionKit impression, signed as a compact JWS.
    case adAttributionKit(AAKImpression)

    /// The framework that signs it.
    public var framework: Framework {
        switch self {
        case .skadnetwork: .skadnetwork
        case .adAttributionKit: .adAttributionKit
        }
    }

    /// The ad network it is for, whose key signs it.
    public var network: String {
        switch self {
        case .skadnetwork(let impression, _): impression.adNetworkID
        case .adAttributionKit(let impression): impression.adNetworkIdentifier
        }
    }

    /// The SKAdNetwork impression, when it is one.
    public var skadnetwork: Impression? {
        if case .skadnetwork(let impression, _) = self { impression } else { nil }
    }

    /// Checks what a device checks of the fields (ranges, which ids go with which version), naming the field.
    public func validate() throws(SKANError) {
        switch self {
        case .skadnetwork(let impression, _): try impression.validate()
        case .adAttributionKit(let impression): try impression.validate()
        }
    }

    /// The impression signed with the network's `key`, after ``validate()``; a key its framework cannot sign with
    /// (a P-192 key for AdAttributionKit's ES256) is an error naming the curve.
    public func signed(with key: ECPrivateKey) throws(SKANError) -> SignedAttributionImpression {
        try validate()
        return try signed(validatedWith: key)
    }

    /// The same for an impression ``validate()`` has just passed (``ImpressionBatch`` checks the whole batch
    /// before it signs any), without checking it twice.
    func signed(validatedWith key: ECPrivateKey) throws(SKANError) -> SignedAttributionImpression {
        switch self {
        case .skadnetwork(let impression, let format):
            .skadnetwork(try ImpressionSigner(key: key).sign(validated: impression), format: format)
        case .adAttributionKit(let impression):
            .adAttributionKit(jws: try impression.signed(validatedWith: key))
        }
    }

    /// What names a verified impression in `skan verify-impression`'s line: the version, kind and nonce of an
    /// SKAdNetwork impression, the framework, kid and impression identifier of an AdAttributionKit one.
    public var summary: String {
        switch self {
        case .skadnetwork(let impression, _):
            "version=\(impression.version) kind=\(impression.kind) nonce=\(impression.nonceText)"
        case .adAttributionKit(let impression):
            "framework=\(Framework.adAttributionKit) kid=\(impression.adNetworkIdentifier) impression-identifier=\(impression.impressionIdentifier)"
        }
    }
}
