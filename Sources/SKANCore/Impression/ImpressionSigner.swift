import Foundation

/// Signs impressions with an ad network's P-256 key, as devices require.
public struct ImpressionSigner: Sendable {
    /// The ad network's private key.
    public let key: ECPrivateKey

    /// A signer for a P-256 key; devices accept no other curve for impressions.
    public init(key: ECPrivateKey) throws(SKANError) {
        guard key.curve == .p256 else {
            throw SKANError(.unsupportedCurve, "impression keys must be P-256 (prime256v1), got \(key.curve)")
        }
        self.key = key
    }

    /// Checks the impression's fields and signs them.
    public func sign(_ impression: Impression) throws(SKANError) -> SignedImpression {
        try impression.validate()
        let signature = try key.signature(for: impression.signedString.bytes)
        return SignedImpression(impression: impression, signature: Data(signature).base64EncodedString())
    }
}

/// What a device concludes about an impression.
public enum ImpressionVerdict: Sendable, Hashable {
    /// The fields fit the version and the network's key signed them.
    case valid
    /// The fields break a rule (campaign-id out of range, view-through below 2.2 ...); the reason says which.
    case invalidFields(String)
    /// The signature is not the network's over these fields (a wrong order or an uppercase nonce end here).
    case invalidSignature(String)

    /// Whether a device would accept the impression.
    public var isValid: Bool { self == .valid }
}

/// Checks impressions as a device does, with the ad network's public key.
public struct ImpressionVerifier: Sendable {
    /// The ad network's public key.
    public let publicKey: ECPublicKey

    /// A verifier for one ad network's key.
    public init(publicKey: ECPublicKey) {
        self.publicKey = publicKey
    }

    /// Checks the fields, then the signature.
    public func verify(_ signed: SignedImpression) -> ImpressionVerdict {
        do {
            try signed.impression.validate()
        } catch {
            return .invalidFields(error.reason)
        }
        guard publicKey.curve == .p256 else { return .invalidSignature("the ad network key must be P-256") }
        guard let signature = Data(base64Encoded: signed.signature) else {
            return .invalidSignature("the signature is not Base64")
        }
        guard publicKey.isValidSignature(signature, for: signed.impression.signedString.bytes) else {
            return .invalidSignature("the signature does not match \(signed.impression.signedFieldNames.joined(separator: ", ")) under the given key")
        }
        return .valid
    }
}
