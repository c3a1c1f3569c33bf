import COpenSSL
import Crypto
import Foundation

/// Signs with ECDSA-SHA256 using a nonce derived from the private key and the message, in the manner of
/// RFC 6979, so that one key and one message always give the same signature.
///
/// Why: the device simulator must write byte-identical output for the same seed, and ordinary ECDSA draws a
/// fresh random nonce for every signature. The signatures are ordinary ECDSA signatures: any verifier accepts
/// them. The nonce stays secret and unique per message because it is an HMAC keyed with the private key.
///
/// `@unchecked Sendable`: every OpenSSL object held here is read-only after `init`; each call works in its own
/// `BN_CTX`, which is what OpenSSL requires for use from many threads.
public final class DeterministicSigner: @unchecked Sendable {
    /// The curve of the key.
    public let curve: ECCurve
    private let group: OpaquePointer
    private let order: OpaquePointer
    private let privateScalar: OpaquePointer
    private let nonceKey: SymmetricKey
    private let digestBytes: Int

    /// Prepares to sign with `key` (P-256 or P-192).
    public init(key: ECPrivateKey) throws(SKANError) {
        curve = key.curve
        let nid = curve.openSSLName.withCString { OBJ_sn2nid($0) }
        guard let group = EC_GROUP_new_by_curve_name(nid) else {
            throw SKANError(.cryptoFailure, "OpenSSL has no group for \(curve)")
        }
        var scalar: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(key.openSSL.pointer, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) == 1, let scalar,
              let order = BN_dup(EC_GROUP_get0_order(group)) else {
            EC_GROUP_free(group)
            throw SKANError(.notAPrivateKey, "the \(curve) key holds no private scalar")
        }
        self.group = group
        self.order = order
        privateScalar = scalar
        let length = Int((BN_num_bits(order) + 7) / 8)
        var bytes = [UInt8](repeating: 0, count: length)
        _ = BN_bn2binpad(scalar, &bytes, Int32(length))
        nonceKey = SymmetricKey(data: bytes)
        // ECDSA keeps the leftmost bits of the digest that fit the group order: all 32 bytes on P-256, 24 on P-192.
        digestBytes = min(32, length)
    }

    deinit {
        BN_clear_free(privateScalar)
        BN_free(order)
        EC_GROUP_free(group)
    }

    /// Signs `message` with ECDSA-SHA256, returning the DER signature.
    public func signature(for message: some DataProtocol) throws(SKANError) -> [UInt8] {
        let digest = Array(SHA256.hash(data: message))
        guard let context = BN_CTX_new() else { throw SKANError(.cryptoFailure, "OpenSSL is out of memory") }
        defer { BN_CTX_free(context) }
        BN_CTX_start(context)
        defer { BN_CTX_end(context) }
        guard let e = BN_CTX_get(context), let k = BN_CTX_get(context), let x = BN_CTX_get(context),
              let kInverse = BN_CTX_get(context), let sum = BN_CTX_get(context),
              let point = EC_POINT_new(group) else {
            throw SKANError(.cryptoFailure, "OpenSSL is out of memory")
        }
        defer { EC_POINT_free(point) }
        _ = BN_bin2bn(digest, Int32(digestBytes), e)
        _ = BN_nnmod(e, e, order, context)
        for counter in UInt8(0)...UInt8(255) {
            var input = digest
            input.append(counter)
            let nonce = Array(HMAC<SHA256>.authenticationCode(for: input, using: nonceKey))
            guard let r = BN_new(), let s = BN_new() else { throw SKANError(.cryptoFailure, "OpenSSL is out of memory") }
            var handedOver = false
            defer { if !handedOver { BN_free(r); BN_free(s) } }
            _ = BN_bin2bn(nonce, Int32(nonce.count), k)
            _ = BN_nnmod(k, k, order, context)
            if BN_is_zero(k) == 1 { continue }
            guard EC_POINT_mul(group, point, k, nil, nil, context) == 1,
                  EC_POINT_get_affine_coordinates(group, point, x, nil, context) == 1,
                  BN_nnmod(r, x, order, context) == 1 else {
                throw SKANError(.cryptoFailure, "OpenSSL could not multiply on \(curve)")
            }
            if BN_is_zero(r) == 1 { continue }
            // OpenSSL takes the branch-free inversion for a k flagged constant-time.
            BN_set_flags(k, BN_FLG_CONSTTIME)
            guard BN_mod_inverse(kInverse, k, order, context) != nil,
                  BN_mod_mul(sum, r, privateScalar, order, context) == 1,
                  BN_mod_add(sum, sum, e, order, context) == 1,
                  BN_mod_mul(s, kInverse, sum, order, context) == 1 else {
                throw SKANError(.cryptoFailure, "OpenSSL could not compute the signature on \(curve)")
            }
            if BN_is_zero(s) == 1 { continue }
            guard let signature = ECDSA_SIG_new() else { throw SKANError(.cryptoFailure, "OpenSSL is out of memory") }
            defer { ECDSA_SIG_free(signature) }
            _ = ECDSA_SIG_set0(signature, r, s)
            handedOver = true
            var out: UnsafeMutablePointer<UInt8>? = nil
            let length = i2d_ECDSA_SIG(signature, &out)
            guard length > 0, let out else { throw SKANError(.cryptoFailure, "OpenSSL could not encode the signature") }
            defer { CRYPTO_free(out, #fileID, #line) }
            return Array(UnsafeBufferPointer(start: out, count: Int(length)))
        }
        throw SKANError(.cryptoFailure, "no usable nonce in 256 tries, which cannot happen with a sound hash")
    }
}
