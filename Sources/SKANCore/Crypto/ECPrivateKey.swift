import Crypto
import Foundation

/// An ECDSA private key on P-256 or P-192, with one sign call for both: an ad network's impression key (P-256, or
/// P-192 for networks that registered in mid-2020) or a simulated Apple postback key.
public struct ECPrivateKey: Sendable {
    enum Backend: Sendable {
        case p256(P256.Signing.PrivateKey)
        case openSSL(OpenSSLKey)
    }

    let backend: Backend
    let openSSL: OpenSSLKey

    /// The matching public key.
    public let publicKey: ECPublicKey

    /// The curve the key is on.
    public var curve: ECCurve { publicKey.curve }

    init(openSSL key: OpenSSLKey, source: String) throws(SKANError) {
        let publicKey = try ECPublicKey(openSSL: key, source: source)
        guard key.hasPrivateKey else {
            throw SKANError(.notAPrivateKey, "\(source): holds a public key, expected a private key")
        }
        switch publicKey.curve {
        case .p256:
            guard let der = key.sec1DER, let p256 = try? P256.Signing.PrivateKey(derRepresentation: der) else {
                throw SKANError(.unreadableKey, "\(source): OpenSSL read a P-256 key that swift-crypto refused")
            }
            backend = .p256(p256)
        case .p192:
            backend = .openSSL(key)
        }
        self.openSSL = key
        self.publicKey = publicKey
    }

    /// Reads a PEM private key: SEC1 `EC PRIVATE KEY` (what `openssl ecparam -name prime256v1 -genkey -noout`
    /// writes) or PKCS#8 `PRIVATE KEY`.
    ///
    /// - Parameter source: names the input in errors, usually the file path.
    public init(pem: String, source: String = "key") throws(SKANError) {
        if let key = OpenSSLKey.privateKey(pem: pem) {
            try self.init(openSSL: key, source: source)
            return
        }
        if OpenSSLKey.publicKey(pem: pem) != nil {
            throw SKANError(.notAPrivateKey, "\(source): holds a PUBLIC KEY, expected an EC PRIVATE KEY or PRIVATE KEY")
        }
        let found = pem.contains("-----BEGIN") ? PEMLabels.describe(pem) : "no PEM block"
        throw SKANError(.unreadableKey, "\(source): found \(found), expected a PEM EC PRIVATE KEY or PRIVATE KEY")
    }

    /// Makes a new random key.
    public static func generate(curve: ECCurve = .p256) throws(SKANError) -> ECPrivateKey {
        guard let key = OpenSSLKey.generate(curve: curve) else {
            throw SKANError(.cryptoFailure, "OpenSSL could not generate a \(curve) key")
        }
        return try ECPrivateKey(openSSL: key, source: "generated key")
    }

    /// The key as SEC1 `EC PRIVATE KEY` PEM, the form Apple's registration page shows.
    public var sec1PEM: String {
        // Writing to a memory BIO fails only when memory does.
        openSSL.sec1PEM ?? ""
    }

    /// Signs `message` with ES256 as JWS needs it (RFC 7518 §3.4): raw `r ‖ s`, 64 bytes. P-256 keys only.
    public func es256Signature(for message: some DataProtocol) throws(SKANError) -> [UInt8] {
        guard case .p256(let key) = backend else {
            throw SKANError(.cryptoFailure, "ES256 needs a P-256 key, this one is \(curve)")
        }
        guard let signature = try? key.signature(for: message) else {
            throw SKANError(.cryptoFailure, "swift-crypto could not sign with a P-256 key")
        }
        return Array(signature.rawRepresentation)
    }

    /// Signs `message` with ECDSA-SHA256, returning the DER signature.
    public func signature(for message: some DataProtocol) throws(SKANError) -> [UInt8] {
        switch backend {
        case .p256(let key):
            guard let signature = try? key.signature(for: message) else {
                throw SKANError(.cryptoFailure, "swift-crypto could not sign with a P-256 key")
            }
            return Array(signature.derRepresentation)
        case .openSSL(let key):
            let digest = SHA256.hash(data: message)
            guard let signature = digest.withUnsafeBytes({ key.sign(digest: $0) }) else {
                throw SKANError(.cryptoFailure, "OpenSSL could not sign with a \(curve) key")
            }
            return signature
        }
    }
}
