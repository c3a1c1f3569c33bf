import Foundation

/// Signs impressions with an ad network's key, P-256 or P-192, as devices accept them.
///
/// Apple asks for P-256 today, but networks that registered in mid-2020, when Apple's page said prime192v1,
/// still sign production impressions with P-192 keys and devices accept them (spec §1). `skan sign` and the
/// signing service both sign through this type, so both take either curve.
public struct ImpressionSigner: Sendable {
    /// The ad network's private key.
    public let key: ECPrivateKey

    /// A signer for the network's key. Nothing is left to refuse here: an ``ECPrivateKey`` is on P-256 or P-192,
    /// and a key on any other curve was already refused, by name, when it was read.
    public init(key: ECPrivateKey) {
        self.key = key
    }

    /// Checks the impression's fields and signs them.
    public func sign(_ impression: Impression) throws(SKANError) -> SignedImpression {
        try impression.validate()
        return try sign(validated: impression)
    }

    /// Signs an impression whose fields the caller has just checked (``ImpressionBatch`` checks a whole batch
    /// first): the check is a third of a signature's cost at a batch's scale, so it runs once.
    func sign(validated impression: Impression) throws(SKANError) -> SignedImpression {
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
    /// The signature is not the network's over these fields (a wrong order or an uppercase nonce end here), or
    /// is not a DER signature at all; the reason says which.
    case invalidSignature(String)

    /// Whether a device would accept the impression.
    public var isValid: Bool { self == .valid }
}

/// Checks impressions as a device does, with the ad network's public key.
public struct ImpressionVerifier: Sendable {
    /// The ad network's public key: P-256, or P-192 for networks that registered in mid-2020 (spec §1).
    public let publicKey: ECPublicKey

    /// A verifier for one ad network's key, on either curve: the key says which.
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
        guard let signature = Data(base64Encoded: signed.signature) else {
            return .invalidSignature("the signature is not Base64")
        }
        guard publicKey.isValidSignature(signature, for: signed.impression.signedString.bytes) else {
            return .invalidSignature(refusal(of: signature, fields: signed.impression.signedFieldNames))
        }
        return .valid
    }

    /// Why a signature was refused. Only a refusal reads the DER a second time, so an impression that verifies
    /// costs what it did before.
    private func refusal(of signature: Data, fields: [String]) -> String {
        let curve = publicKey.curve
        guard publicKey.isDERSignature(signature) else {
            let width = curve.scalarByteCount
            var hint = ""
            if signature.count == 2 * width {
                // The usual mistake: the fixed-width r ‖ s that JWS and CryptoKit's rawRepresentation write.
                hint = "; its \(signature.count) bytes are the length of a raw r ‖ s, which is not DER"
            } else if curve == .p192 && DERSignature.isStrict(signature, width: ECCurve.p256.scalarByteCount) {
                // A network with keys on both curves, checked with the wrong one.
                hint = "; its integers are P-256-sized, as a P-256 key makes them"
            }
            return "the signature is not a DER ECDSA signature for a \(curve) key (SEQUENCE { r INTEGER, s INTEGER } with values of at most \(width) bytes)\(hint)"
        }
        return "the signature does not match \(fields.joined(separator: ", ")) under the given \(curve) key"
    }
}
