import Crypto
import Foundation

/// An ECDSA public key on P-256 or P-192, with one verify call for both.
///
/// P-256 goes through swift-crypto (BoringSSL's assembly), or, for a key the process keeps for its whole life
/// (``forRepeatedVerification()``), through a ``FixedKeyVerifier``'s precomputed tables; P-192, which swift-crypto
/// does not have, goes through the system's OpenSSL libcrypto.
public struct ECPublicKey: Sendable {
    enum Backend: Sendable {
        case p256(P256.Signing.PublicKey)
        case p256Fixed(FixedKeyVerifier)
        case openSSL(OpenSSLKey)
    }

    let backend: Backend

    /// The curve the key is on.
    public let curve: ECCurve

    /// The key as X.509 SubjectPublicKeyInfo DER.
    public let spkiDER: [UInt8]

    /// The key as Apple publishes its keys and as an ad network registers one: Base64 SubjectPublicKeyInfo.
    public var base64: String { Data(spkiDER).base64EncodedString() }

    /// The key as `PUBLIC KEY` PEM.
    public var pemRepresentation: String {
        var lines = ["-----BEGIN PUBLIC KEY-----"]
        var rest = Substring(base64)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        lines.append("-----END PUBLIC KEY-----")
        return lines.joined(separator: "\n") + "\n"
    }

    init(openSSL key: OpenSSLKey, source: String) throws(SKANError) {
        guard let curve = key.curve else {
            throw SKANError(.unsupportedCurve,
                "\(source): the key is on \(key.curveDescription), expected prime256v1 (P-256) or prime192v1 (P-192)")
        }
        let der = key.spkiDER
        self.curve = curve
        self.spkiDER = der
        switch curve {
        case .p256:
            guard let p256 = try? P256.Signing.PublicKey(derRepresentation: der) else {
                throw SKANError(.unreadableKey, "\(source): OpenSSL read a P-256 key that swift-crypto refused")
            }
            backend = .p256(p256)
        case .p192:
            backend = .openSSL(key)
        }
    }

    private init(backend: Backend, curve: ECCurve, spkiDER: [UInt8]) {
        self.backend = backend
        self.curve = curve
        self.spkiDER = spkiDER
    }

    /// This key, verifying P-256 signatures through a ``FixedKeyVerifier``: a table of the key's multiples is
    /// built (148 KiB, about a millisecond) and self-tested now, so that each later verify costs about a third of
    /// swift-crypto's. For keys loaded once and used for many signatures (the keys a ``KeyRing`` trusts); a
    /// P-192 key, or one already prepared, comes back as it is.
    public func forRepeatedVerification() -> ECPublicKey {
        guard case .p256(let key) = backend else { return self }
        return ECPublicKey(backend: .p256Fixed(FixedKeyVerifier(publicKey: key)), curve: curve, spkiDER: spkiDER)
    }

    /// How P-256 signatures are checked for a key from ``forRepeatedVerification()``; nil for any other key.
    public var fixedKeyRoute: FixedKeyVerifier.Route? {
        guard case .p256Fixed(let verifier) = backend else { return nil }
        return verifier.route
    }

    /// Reads a public key from SubjectPublicKeyInfo DER.
    public init(spkiDER: [UInt8], source: String = "key") throws(SKANError) {
        guard let key = OpenSSLKey.publicKey(spkiDER: spkiDER) else {
            throw SKANError(.unreadableKey, "\(source): not a DER SubjectPublicKeyInfo public key")
        }
        try self.init(openSSL: key, source: source)
    }

    /// Reads a public key from text: PEM `PUBLIC KEY`, a PEM private key (its public half is taken),
    /// or bare Base64 SubjectPublicKeyInfo as Apple publishes its keys.
    ///
    /// - Parameter source: names the input in errors, usually the file path.
    public init(text: String, source: String = "key") throws(SKANError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.contains("-----BEGIN") {
            if let key = OpenSSLKey.publicKey(pem: trimmed) ?? OpenSSLKey.privateKey(pem: trimmed) {
                try self.init(openSSL: key, source: source)
                return
            }
            throw SKANError(.unreadableKey, "\(source): found \(PEMLabels.describe(trimmed)), expected a PEM PUBLIC KEY, EC PRIVATE KEY or PRIVATE KEY")
        }
        guard let der = Data(base64Encoded: trimmed), !der.isEmpty else {
            throw SKANError(.unreadableKey, "\(source): neither PEM nor Base64; expected a PEM key or Base64 SubjectPublicKeyInfo")
        }
        try self.init(spkiDER: Array(der), source: source)
    }

    /// Whether `signatureDER` is this key's ECDSA signature over `digest` (SHA-256 of the signed bytes).
    /// A signature that is not valid DER is simply not valid.
    public func isValidSignature(_ signatureDER: some ContiguousBytes, digest: SHA256.Digest) -> Bool {
        switch backend {
        case .p256(let key):
            // r ‖ s on the stack: the signature's init copies it into its own `Data`, the one allocation left.
            let signature = withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { raw in
                signatureDER.withUnsafeBytes { DERSignature.read($0, width: 32, into: raw) }
                    ? try? P256.Signing.ECDSASignature(rawRepresentation: UnsafeRawBufferPointer(raw)) : nil
            }
            guard let signature else { return false }
            return key.isValidSignature(signature, for: digest)
        case .p256Fixed(let verifier):
            return withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { raw in
                signatureDER.withUnsafeBytes { DERSignature.read($0, width: 32, into: raw) }
                    && verifier.isValidSignature(raw: UnsafeRawBufferPointer(raw), digest: digest)
            }
        case .openSSL(let key):
            return digest.withUnsafeBytes { digestBytes in
                signatureDER.withUnsafeBytes { key.verify(digest: digestBytes, signatureDER: $0) }
            }
        }
    }

    /// Whether `signatureDER` is strict DER (`SEQUENCE { r INTEGER, s INTEGER }`) with integers that fit this key's
    /// curve. Verification says only valid or not; this tells a caller that has a refusal whether the signature
    /// was not DER at all (raw `r ‖ s` as JWS writes it, another encoding) or was DER and did not match.
    public func isDERSignature(_ signatureDER: some ContiguousBytes) -> Bool {
        DERSignature.isStrict(signatureDER, width: curve.scalarByteCount)
    }

    /// Whether `signature` is this key's ES256 signature over `message` as JWS writes it (RFC 7518 §3.4): the
    /// raw 64 bytes `r ‖ s`, not DER. Only a P-256 key makes ES256 signatures; any other is simply not valid.
    public func isValidES256Signature(_ signature: [UInt8], for message: some DataProtocol) -> Bool {
        guard signature.count == 64 else { return false }
        switch backend {
        case .p256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: SHA256.hash(data: message))
        case .p256Fixed(let verifier):
            let digest = SHA256.hash(data: message)
            return signature.withUnsafeBytes { verifier.isValidSignature(raw: $0, digest: digest) }
        case .openSSL:
            return false
        }
    }

    /// Whether `signatureDER` is this key's ECDSA-SHA256 signature over `message`.
    public func isValidSignature(_ signatureDER: some ContiguousBytes, for message: some DataProtocol) -> Bool {
        isValidSignature(signatureDER, digest: SHA256.hash(data: message))
    }
}

/// Names what a PEM text holds, for error messages about the wrong kind of file.
enum PEMLabels {
    static func describe(_ text: String) -> String {
        let labels = text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") else { return nil }
            return String(line.dropFirst(11).dropLast(5))
        }
        guard !labels.isEmpty else { return "a malformed PEM block" }
        return labels.map { "a PEM \($0)" }.joined(separator: " and ") + " that OpenSSL could not read"
    }
}
