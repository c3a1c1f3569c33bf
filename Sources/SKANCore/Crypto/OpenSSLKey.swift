import COpenSSL
import Foundation

/// An OpenSSL `EVP_PKEY`, owned and freed here.
///
/// `@unchecked Sendable` because the key is never mutated after it is loaded, and OpenSSL 3 allows one
/// `EVP_PKEY` to be used from many threads as long as each operation has its own `EVP_PKEY_CTX`: ``sign(digest:)``
/// creates one per call, ``verify(digest:signatureDER:)`` takes one from a pool that lends each to one caller.
final class OpenSSLKey: @unchecked Sendable {
    let pointer: OpaquePointer
    private let verifyContexts = ReusePool<VerifyContext>()

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// Reads a public key from X.509 SubjectPublicKeyInfo DER (Apple's Base64 form, decoded).
    static func publicKey(spkiDER: [UInt8]) -> OpenSSLKey? {
        spkiDER.withUnsafeBufferPointer { buffer -> OpenSSLKey? in
            var cursor = buffer.baseAddress
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else { return nil }
            return OpenSSLKey(key)
        }
    }

    /// Reads the first private key of a PEM text: SEC1 `EC PRIVATE KEY` (skipping an `EC PARAMETERS` block
    /// before it, as `openssl ecparam -genkey` writes) or PKCS#8 `PRIVATE KEY`.
    static func privateKey(pem: String) -> OpenSSLKey? {
        withMemoryBIO(pem) { bio in PEM_read_bio_PrivateKey(bio, nil, nil, nil) }.map(OpenSSLKey.init)
    }

    /// Reads the first `PUBLIC KEY` of a PEM text.
    static func publicKey(pem: String) -> OpenSSLKey? {
        withMemoryBIO(pem) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }.map(OpenSSLKey.init)
    }

    /// Makes a fresh key pair on a curve (used for test keys and the simulated Apple P-192 key).
    static func generate(curve: ECCurve) -> OpenSSLKey? {
        curve.openSSLName.withCString { name in
            skan_ec_keygen(name)
        }.map(OpenSSLKey.init)
    }

    /// The key's algorithm and curve, as OpenSSL names them ("prime256v1", "secp256k1", "RSA" ...).
    var curveName: String {
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC else {
            let name = EVP_PKEY_get0_type_name(pointer).map { String(cString: $0) } ?? "an unknown algorithm"
            return "\(name) (not an elliptic-curve key)"
        }
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &buffer, buffer.count, &length) == 1 else { return "an unnamed EC curve" }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The curve for a person: OpenSSL's name with the NIST one beside it where there is one
    /// ("secp384r1 (P-384)"), since people say "P-384" and key files say "secp384r1".
    var curveDescription: String {
        let name = curveName
        // An unknown name gives NID_undef, which has no NIST name either.
        guard let nist = EC_curve_nid2nist(name.withCString { OBJ_sn2nid($0) }).map({ String(cString: $0) }),
              nist != name else { return name }
        return "\(name) (\(nist))"
    }

    /// The curve, when it is one SKAdNetwork uses.
    var curve: ECCurve? {
        ECCurve.allCases.first { $0.openSSLName == curveName }
    }

    /// The public half as SubjectPublicKeyInfo DER.
    var spkiDER: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(pointer, &out)
        guard length > 0, let out else { return [] }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// Whether the key holds a private scalar (a parsed public key does not).
    var hasPrivateKey: Bool {
        var scalar: OpaquePointer? = nil
        defer { BN_free(scalar) }
        return EVP_PKEY_get_bn_param(pointer, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) == 1
    }

    /// The private key as SEC1 `EC PRIVATE KEY` PEM: the form `openssl ecparam -genkey -noout` writes.
    var sec1PEM: String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey_traditional(bio, pointer, nil, nil, 0, nil, nil) == 1 else { return nil }
        return Self.drain(bio)
    }

    /// The public key as `PUBLIC KEY` PEM.
    var publicPEM: String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PUBKEY(bio, pointer) == 1 else { return nil }
        return Self.drain(bio)
    }

    /// The private key as SEC1 DER (swift-crypto reads this form).
    var sec1DER: [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PrivateKey(pointer, &out)
        guard length > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// ECDSA-verifies a DER signature over a SHA-256 digest. The curve truncates the digest as it needs
    /// (P-192 keeps the leftmost 192 bits), which is how Apple signs 1.0 and 2.0 postbacks.
    func verify(digest: UnsafeRawBufferPointer, signatureDER: UnsafeRawBufferPointer) -> Bool {
        let result = verifyContexts.withObject(orMake: makeVerifyContext) { context in
            EVP_PKEY_verify(
                context.pointer,
                signatureDER.bindMemory(to: UInt8.self).baseAddress, signatureDER.count,
                digest.bindMemory(to: UInt8.self).baseAddress, digest.count)
        }
        // OpenSSL leaves an error on its thread queue for a malformed signature; clear it so that it
        // cannot surface later as the cause of an unrelated failure.
        ERR_clear_error()
        return result == 1
    }

    /// A context initialised for verifying with this key. Creating one per call fetched the provider's algorithm
    /// and set the key up each time, a tenth of a P-192 verify; an initialised context verifies any number of
    /// signatures, one caller at a time, so the pool keeps them.
    private func makeVerifyContext() -> VerifyContext? {
        guard let context = EVP_PKEY_CTX_new(pointer, nil) else { return nil }
        guard EVP_PKEY_verify_init(context) == 1 else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return VerifyContext(pointer: context)
    }

    /// ECDSA-signs a SHA-256 digest, giving a DER signature.
    func sign(digest: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let context = EVP_PKEY_CTX_new(pointer, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_sign_init(context) == 1 else { return nil }
        let input = digest.bindMemory(to: UInt8.self)
        var length = 0
        guard EVP_PKEY_sign(context, nil, &length, input.baseAddress, input.count) == 1 else { return nil }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(context, &signature, &length, input.baseAddress, input.count) == 1 else { return nil }
        return Array(signature.prefix(length))
    }

    private static func withMemoryBIO(_ text: String, _ body: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { raw -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            let key = body(bio)
            ERR_clear_error()
            return key
        }
    }

    private static func drain(_ bio: OpaquePointer) -> String {
        var text = ""
        var chunk = [UInt8](repeating: 0, count: 1024)
        while true {
            let read = BIO_read(bio, &chunk, Int32(chunk.count))
            if read <= 0 { break }
            text += String(decoding: chunk.prefix(Int(read)), as: UTF8.self)
        }
        return text
    }
}

/// An `EVP_PKEY_CTX` initialised for verification, owned by the pool of one ``OpenSSLKey``.
///
/// `@unchecked Sendable`: the pool lends a context to one thread at a time.
private final class VerifyContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_CTX_free(pointer) }
}
