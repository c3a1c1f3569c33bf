import CSKANP256Table
import Crypto
import Foundation

extension FixedKeyVerifier {
    /// The checks a table passes before it is trusted. Each case is judged by the table and by swift-crypto's
    /// verify, and both must give the answer the case was made to have; one disagreement and the key stays on
    /// swift-crypto. The signatures are fresh at every load, so a fault that only some inputs reach is not
    /// hidden behind a fixed list.
    enum SelfTest {
        /// P-256's group order n (SEC 2 §2.4.2), big-endian.
        static let order = P256Table.hexBytes("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

        /// Once per process, for G's table and the scalar code every key shares: a fresh key pair signs random
        /// digests, and each signature must verify as made, with s replaced by n - s (ECDSA accepts both), and
        /// not at all with a bit flipped in r, in s or in the digest, nor with r or s zero or n.
        static func generatorPasses(_ generator: P256Table) -> Bool {
            let privateKey = P256.Signing.PrivateKey()
            guard let key = P256Table(point: privateKey.publicKey.x963Representation) else { return false }
            let tables = Tables(generator: generator, key: key)
            let publicKey = privateKey.publicKey
            let zero = [UInt8](repeating: 0, count: 32)
            for round in 0..<8 {
                let digest = RawDigest.random()
                guard let signature = try? privateKey.signature(for: digest) else { return false }
                let raw = [UInt8](signature.rawRepresentation)
                let r = Array(raw[..<32]), s = Array(raw[32...])
                let cases: [([UInt8], RawDigest, Bool)] = [
                    (raw, digest, true),
                    (r + negated(s), digest, true),
                    (flipped(raw, bit: round * 29 % 256), digest, false),
                    (flipped(raw, bit: 256 + round * 31 % 256), digest, false),
                    (raw, RawDigest(bytes: flipped(digest.bytes, bit: round * 37 % 256)), false),
                    (zero + s, digest, false), (r + zero, digest, false),
                    (order + s, digest, false), (r + order, digest, false),
                ]
                for (signature, digest, expected) in cases
                where !agree(tables, publicKey, signature, digest, expected) { return false }
            }
            return true
        }

        /// Per key, for its own table, without its private key: with a zero digest, u1 = 0 and u2 = r/s, so for
        /// any u, r = x(u·Q) mod n (what ECDH gives) and s = r/u make a signature the key must accept; it must
        /// accept s = n - s too, and refuse a flipped r and any other digest.
        static func passes(_ tables: Tables, publicKey: P256.Signing.PublicKey) -> Bool {
            guard let peer = try? P256.KeyAgreement.PublicKey(rawRepresentation: publicKey.rawRepresentation)
            else { return false }
            let zero = RawDigest(bytes: [UInt8](repeating: 0, count: 32))
            let one = [UInt8](repeating: 0, count: 31) + [1]
            for round in 0..<3 {
                let u = P256.KeyAgreement.PrivateKey()
                guard let shared = try? u.sharedSecretFromKeyAgreement(with: peer) else { return false }
                let x = shared.withUnsafeBytes { [UInt8]($0) }
                guard let r = divide(x, one), r != [UInt8](repeating: 0, count: 32),
                      let s = divide(r, [UInt8](u.rawRepresentation)) else { return false }
                let cases: [([UInt8], RawDigest, Bool)] = [
                    (r + s, zero, true),
                    (r + negated(s), zero, true),
                    (flipped(r + s, bit: 100 + round * 41), zero, false),
                    (r + s, RawDigest.random(), false),
                ]
                for (signature, digest, expected) in cases
                where !agree(tables, publicKey, signature, digest, expected) { return false }
            }
            return true
        }

        static func agree(_ tables: Tables, _ publicKey: P256.Signing.PublicKey, _ raw: [UInt8], _ digest: RawDigest,
                          _ expected: Bool) -> Bool {
            let table = raw.withUnsafeBytes { tables.verify(raw: $0, digest: digest) }
            let reference = (try? P256.Signing.ECDSASignature(rawRepresentation: raw))
                .map { publicKey.isValidSignature($0, for: digest) } ?? false
            return table == expected && reference == expected
        }

        /// a / b mod n; nil for b outside [1, n-1] or off the table path.
        static func divide(_ a: [UInt8], _ b: [UInt8]) -> [UInt8]? {
            var out = [UInt8](repeating: 0, count: 32)
            guard a.count == 32, b.count == 32, skan_p256_scalar_divide(&out, a, b) == 1 else { return nil }
            return out
        }

        /// n - s for s in [1, n-1], big-endian.
        static func negated(_ s: [UInt8]) -> [UInt8] {
            var result = [UInt8](repeating: 0, count: 32)
            var borrow = 0
            for index in (0..<32).reversed() {
                let difference = Int(order[index]) - Int(s[index]) - borrow
                borrow = difference < 0 ? 1 : 0
                result[index] = UInt8((difference + 256) % 256)
            }
            return result
        }

        static func flipped(_ bytes: [UInt8], bit: Int) -> [UInt8] {
            var copy = bytes
            copy[bit / 8] ^= 1 << (bit % 8)
            return copy
        }
    }
}

/// Thirty-two bytes that swift-crypto takes as a digest, so that the self-test can ask it about any digest value
/// (a zero one above all), not only those SHA-256 produces.
struct RawDigest: Digest {
    static var byteCount: Int { 32 }
    let bytes: [UInt8]

    static func random() -> RawDigest {
        var generator = SystemRandomNumberGenerator()
        return RawDigest(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }

    var description: String { "RawDigest(\(bytes.count) bytes)" }
}
