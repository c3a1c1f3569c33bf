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
/// OpenSSL 3.0 (Debian 12) has no deterministic nonce of its own, so the signature equation is computed here
/// with libcrypto's big-number and curve primitives; `k·G` goes through the curve's fixed-base tables, as in
/// OpenSSL's own signer.
///
/// `@unchecked Sendable`: every OpenSSL object held here is read-only after `init`, except the scratch
/// workspaces, which the pool hands to one caller at a time (OpenSSL contexts are not for concurrent use).
public final class DeterministicSigner: @unchecked Sendable {
    /// The curve of the key.
    public let curve: ECCurve
    private let group: OpaquePointer
    private let order: OpaquePointer
    private let orderMinusTwo: OpaquePointer
    private let orderMontgomery: OpaquePointer
    private let privateScalar: OpaquePointer
    /// HMAC keyed once with the private scalar; each nonce copies it, so the key's pads are hashed only here.
    private let keyedNonceMAC: HMAC<SHA256>
    private let digestBytes: Int
    /// Scratch contexts reused across calls: a fresh `BN_CTX` per signature costs a dozen allocations.
    private let workspaces = ReusePool<Workspace>()

    /// Prepares to sign with `key` (P-256 or P-192).
    public init(key: ECPrivateKey) throws(SKANError) {
        curve = key.curve
        let nid = curve.openSSLName.withCString { OBJ_sn2nid($0) }
        guard let group = EC_GROUP_new_by_curve_name(nid) else {
            throw SKANError(.cryptoFailure, "OpenSSL has no group for \(curve)")
        }
        var scalar: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(key.openSSL.pointer, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) == 1, let scalar else {
            EC_GROUP_free(group)
            throw SKANError(.notAPrivateKey, "the \(curve) key holds no private scalar")
        }
        guard let order = BN_dup(EC_GROUP_get0_order(group)), let orderMinusTwo = BN_dup(order),
              BN_sub_word(orderMinusTwo, 2) == 1, let context = BN_CTX_new(),
              let montgomery = BN_MONT_CTX_new() else {
            BN_clear_free(scalar)
            EC_GROUP_free(group)
            throw SKANError(.cryptoFailure, "OpenSSL is out of memory")
        }
        defer { BN_CTX_free(context) }
        _ = BN_MONT_CTX_set(montgomery, order, context)
        self.group = group
        self.order = order
        self.orderMinusTwo = orderMinusTwo
        orderMontgomery = montgomery
        privateScalar = scalar
        let length = Int((BN_num_bits(order) + 7) / 8)
        var bytes = [UInt8](repeating: 0, count: length)
        _ = BN_bn2binpad(scalar, &bytes, Int32(length))
        keyedNonceMAC = HMAC<SHA256>(key: SymmetricKey(data: bytes))
        // ECDSA keeps the leftmost bits of the digest that fit the group order: all 32 bytes on P-256, 24 on P-192.
        digestBytes = min(32, length)
    }

    deinit {
        BN_clear_free(privateScalar)
        BN_MONT_CTX_free(orderMontgomery)
        BN_free(orderMinusTwo)
        BN_free(order)
        EC_GROUP_free(group)
    }

    /// Signs `message` with ECDSA-SHA256, returning the DER signature.
    public func signature(for message: some DataProtocol) throws(SKANError) -> [UInt8] {
        try signature(for: message, raw: false)
    }

    /// Signs `message` with ECDSA-SHA256, returning `r ‖ s`, each padded to the order's length: the JWS form
    /// (ES256 on P-256, RFC 7518 §3.4) that AdAttributionKit postbacks carry.
    public func rawSignature(for message: some DataProtocol) throws(SKANError) -> [UInt8] {
        try signature(for: message, raw: true)
    }

    /// Signs every message as ``signature(for:)`` would, in order, with one modular inversion for many.
    ///
    /// Why: inverting the nonce by exponentiation costs twice the curve multiplication, and Montgomery's trick
    /// shares one inversion among a batch for three multiplications each. The inverse is unique, so the
    /// signatures are the same bytes one call per message gives.
    public func signatures(for messages: [[UInt8]]) throws(SKANError) -> [[UInt8]] {
        try signatures(for: messages, raw: false)
    }

    /// Signs every message as ``rawSignature(for:)`` would, in order, with one modular inversion for many.
    public func rawSignatures(for messages: [[UInt8]]) throws(SKANError) -> [[UInt8]] {
        try signatures(for: messages, raw: true)
    }

    /// Messages per shared inversion: enough that the inversion costs little per signature, few enough that the
    /// batch's numbers stay in a small part of the workspace.
    static let batchLimit = 128

    private func signatures(for messages: [[UInt8]], raw: Bool) throws(SKANError) -> [[UInt8]] {
        var signatures: [[UInt8]] = []
        signatures.reserveCapacity(messages.count)
        let group = group
        var start = 0
        while start < messages.count {
            let batch = messages[start..<min(start + Self.batchLimit, messages.count)]
            let done: Void? = try workspaces.withObject(orMake: { Workspace(group: group) }) { workspace throws(SKANError) in
                try signBatch(batch, in: workspace, raw: raw, into: &signatures)
            }
            guard done != nil else { throw SKANError(.cryptoFailure, "OpenSSL is out of memory") }
            start += batch.count
        }
        return signatures
    }

    private func signature(for message: some DataProtocol, raw: Bool) throws(SKANError) -> [UInt8] {
        let digest = SHA256.hash(data: message)
        let group = group
        let signature = try workspaces.withObject(orMake: { Workspace(group: group) }) { workspace throws(SKANError) in
            try sign(digest, in: workspace, raw: raw, from: 0)
        }
        guard let signature else { throw SKANError(.cryptoFailure, "OpenSSL is out of memory") }
        return signature
    }

    /// Sets `e` to the digest as a number below the order.
    private func setDigest(_ digest: SHA256.Digest, _ e: OpaquePointer, _ context: OpaquePointer) {
        digest.withUnsafeBytes { _ = BN_bin2bn($0.baseAddress, Int32(digestBytes), e) }
        _ = BN_nnmod(e, e, order, context)
    }

    /// Finds the first counter from `first` whose nonce `k` is nonzero and gives a nonzero `r = x(k·G) mod n`,
    /// leaving both set; returns that counter, or `nil` when none is left.
    private func commit(_ digest: SHA256.Digest, from first: Int, k: OpaquePointer, r: OpaquePointer,
                        x: OpaquePointer, in workspace: Workspace) throws(SKANError) -> Int? {
        let context = workspace.context
        for counter in first..<256 {
            var mac = keyedNonceMAC
            digest.withUnsafeBytes { mac.update(data: $0) }
            withUnsafeBytes(of: UInt8(counter)) { mac.update(data: $0) }
            let nonce = mac.finalize()
            nonce.withUnsafeBytes { _ = BN_bin2bn($0.baseAddress, Int32($0.count), k) }
            _ = BN_nnmod(k, k, order, context)
            if BN_is_zero(k) == 1 { continue }
            guard EC_POINT_mul(group, workspace.point, k, nil, nil, context) == 1,
                  EC_POINT_get_affine_coordinates(group, workspace.point, x, nil, context) == 1,
                  BN_nnmod(r, x, order, context) == 1 else {
                throw SKANError(.cryptoFailure, "OpenSSL could not multiply on \(curve)")
            }
            if BN_is_zero(r) == 1 { continue }
            return counter
        }
        return nil
    }

    /// `s = kInverse·(e + r·d) mod n`.
    private func finish(_ s: OpaquePointer, kInverse: OpaquePointer, r: OpaquePointer, e: OpaquePointer,
                        sum: OpaquePointer, context: OpaquePointer) throws(SKANError) {
        guard BN_mod_mul(sum, r, privateScalar, order, context) == 1,
              BN_mod_add(sum, sum, e, order, context) == 1,
              BN_mod_mul(s, kInverse, sum, order, context) == 1 else {
            throw SKANError(.cryptoFailure, "OpenSSL could not compute the signature on \(curve)")
        }
    }

    private func sign(_ digest: SHA256.Digest, in workspace: Workspace, raw: Bool, from first: Int) throws(SKANError) -> [UInt8] {
        let context = workspace.context
        BN_CTX_start(context)
        defer { BN_CTX_end(context) }
        guard let e = BN_CTX_get(context), let k = BN_CTX_get(context), let x = BN_CTX_get(context),
              let r = BN_CTX_get(context), let s = BN_CTX_get(context),
              let kInverse = BN_CTX_get(context), let sum = BN_CTX_get(context) else {
            throw SKANError(.cryptoFailure, "OpenSSL is out of memory")
        }
        setDigest(digest, e, context)
        var next = first
        while let counter = try commit(digest, from: next, k: k, r: r, x: x, in: workspace) {
            // k⁻¹ = k^(n−2) mod n (Fermat; n is prime): a constant-time exponentiation in the order's
            // Montgomery form, prepared once in init, as OpenSSL's signer does for curves without a tuned inverse.
            guard BN_mod_exp_mont_consttime(kInverse, k, orderMinusTwo, order, context, orderMontgomery) == 1 else {
                throw SKANError(.cryptoFailure, "OpenSSL could not compute the signature on \(curve)")
            }
            try finish(s, kInverse: kInverse, r: r, e: e, sum: sum, context: context)
            BN_clear(k)
            BN_clear(kInverse)
            if BN_is_zero(s) == 0 { return raw ? rawSignature(r: r, s: s) : Self.derSignature(r: r, s: s) }
            next = counter + 1
        }
        throw SKANError(.cryptoFailure, "no usable nonce in 256 tries, which cannot happen with a sound hash")
    }

    /// Signs a batch with one inversion (Montgomery's trick): with `p[i] = k[0]·…·k[i]`, one `p[last]⁻¹` walked
    /// back gives `k[i]⁻¹ = p[last]⁻¹·k[last]·…·k[i+1]·p[i−1]`. The inversion is the same constant-time
    /// exponentiation as one signature's; only its input is the product of the batch's nonces.
    private func signBatch(_ messages: ArraySlice<[UInt8]>, in workspace: Workspace, raw: Bool,
                           into signatures: inout [[UInt8]]) throws(SKANError) {
        let context = workspace.context
        BN_CTX_start(context)
        defer { BN_CTX_end(context) }
        let count = messages.count
        guard count > 0 else { return }
        func numbers() throws(SKANError) -> [OpaquePointer] {
            var column: [OpaquePointer] = []
            column.reserveCapacity(count)
            for _ in 0..<count {
                guard let number = BN_CTX_get(context) else { throw SKANError(.cryptoFailure, "OpenSSL is out of memory") }
                column.append(number)
            }
            return column
        }
        // Per message: the digest as a number, r, the nonce, and the product of the nonces up to it.
        let e = try numbers(), r = try numbers(), k = try numbers(), product = try numbers()
        var digests: [SHA256.Digest] = []
        var counters: [Int] = []
        digests.reserveCapacity(count)
        counters.reserveCapacity(count)
        guard let x = BN_CTX_get(context), let inverse = BN_CTX_get(context), let kInverse = BN_CTX_get(context),
              let s = BN_CTX_get(context), let sum = BN_CTX_get(context) else {
            throw SKANError(.cryptoFailure, "OpenSSL is out of memory")
        }
        defer {
            for number in k { BN_clear(number) }
            for number in product { BN_clear(number) }
            BN_clear(inverse)
            BN_clear(kInverse)
        }
        for (index, message) in messages.enumerated() {
            let digest = SHA256.hash(data: message)
            digests.append(digest)
            setDigest(digest, e[index], context)
            guard let counter = try commit(digest, from: 0, k: k[index], r: r[index], x: x, in: workspace) else {
                throw SKANError(.cryptoFailure, "no usable nonce in 256 tries, which cannot happen with a sound hash")
            }
            counters.append(counter)
            let multiplied = index == 0 ? BN_copy(product[0], k[0]) != nil
                : BN_mod_mul(product[index], product[index - 1], k[index], order, context) == 1
            guard multiplied else { throw SKANError(.cryptoFailure, "OpenSSL could not compute the signature on \(curve)") }
        }
        guard BN_mod_exp_mont_consttime(inverse, product[count - 1], orderMinusTwo, order, context, orderMontgomery) == 1 else {
            throw SKANError(.cryptoFailure, "OpenSSL could not compute the signature on \(curve)")
        }
        var batch = [[UInt8]](repeating: [], count: count)
        for index in stride(from: count - 1, through: 0, by: -1) {
            // `inverse` is (k[0]·…·k[index])⁻¹ here.
            let stepped = index == 0 ? BN_copy(kInverse, inverse) != nil
                : BN_mod_mul(kInverse, inverse, product[index - 1], order, context) == 1
                    && BN_mod_mul(inverse, inverse, k[index], order, context) == 1
            guard stepped else { throw SKANError(.cryptoFailure, "OpenSSL could not compute the signature on \(curve)") }
            try finish(s, kInverse: kInverse, r: r[index], e: e[index], sum: sum, context: context)
            if BN_is_zero(s) == 1 {
                // s = 0: the one-by-one signer moves on to the next counter, and so does this one.
                batch[index] = try sign(digests[index], in: workspace, raw: raw, from: counters[index] + 1)
            } else {
                batch[index] = raw ? rawSignature(r: r[index], s: s) : Self.derSignature(r: r[index], s: s)
            }
        }
        signatures += batch
    }

    /// `r ‖ s`, big-endian, each left-padded with zeros to the order's length.
    private func rawSignature(r: OpaquePointer, s: OpaquePointer) -> [UInt8] {
        let width = Int((BN_num_bits(order) + 7) / 8)
        var bytes = [UInt8](repeating: 0, count: 2 * width)
        bytes.withUnsafeMutableBufferPointer { buffer in
            _ = BN_bn2binpad(r, buffer.baseAddress, Int32(width))
            _ = BN_bn2binpad(s, buffer.baseAddress! + width, Int32(width))
        }
        return bytes
    }

    /// `SEQUENCE { INTEGER r, INTEGER s }`, written directly into one buffer: `i2d_ECDSA_SIG` would copy both
    /// numbers into a fresh `ECDSA_SIG` and allocate its output, three allocations for some seventy bytes.
    static func derSignature(r: OpaquePointer, s: OpaquePointer) -> [UInt8] {
        // Curves up to P-384 keep the body under 128 bytes, so the short length form always applies.
        var der: [UInt8] = [0x30, 0]
        der.reserveCapacity(2 + 2 * (2 + 1 + 48))
        func appendInteger(_ number: OpaquePointer) {
            let length = Int((BN_num_bits(number) + 7) / 8)
            der.append(0x02)
            let lengthIndex = der.count
            der.append(UInt8(length))
            let start = der.count
            der.append(contentsOf: repeatElement(0, count: length))
            der.withUnsafeMutableBufferPointer { _ = BN_bn2bin(number, $0.baseAddress! + start) }
            // DER integers are signed and minimal: a set high bit needs a zero byte in front.
            if length > 0 && der[start] & 0x80 != 0 {
                der.insert(0, at: start)
                der[lengthIndex] += 1
            }
        }
        appendInteger(r)
        appendInteger(s)
        der[1] = UInt8(der.count - 2)
        return der
    }
}

/// One caller's OpenSSL scratch space: a big-number context and a point, reused across signatures.
///
/// `@unchecked Sendable`: the signer's pool gives a workspace to one caller at a time.
private final class Workspace: @unchecked Sendable {
    let context: OpaquePointer
    let point: OpaquePointer

    init?(group: OpaquePointer) {
        guard let context = BN_CTX_secure_new() ?? BN_CTX_new() else { return nil }
        guard let point = EC_POINT_new(group) else {
            BN_CTX_free(context)
            return nil
        }
        self.context = context
        self.point = point
    }

    deinit {
        EC_POINT_clear_free(point)
        BN_CTX_free(context)
    }
}
