import CSKANP256Table
import Crypto
import Foundation

/// Verifies ECDSA P-256 signatures by one public key that the process keeps for its whole life (Apple's keys, the
/// AdAttributionKit keys, a key given with `--apple-key-p256` or `--aak-key`), about three times as fast as
/// swift-crypto's general verify.
///
/// A general verify computes u1·G + u2·Q with a precomputed table only for the base point G. With the key Q fixed,
/// a table of Q's multiples built once (148 KiB, about a millisecond) makes the whole multiplication about 74 mixed
/// additions and no doublings (issue #40; the C side is `CSKANP256Table`).
///
/// Safety first: the table is used only when it has passed a self-test against swift-crypto's own verify at
/// construction (signatures it must accept and ones it must refuse), on Linux x86-64, and unless the environment
/// sets `SKAN_P256_TABLE=off`. Otherwise every call goes to swift-crypto, with the same answers. ``route`` says which.
public struct FixedKeyVerifier: Sendable {
    /// How a ``FixedKeyVerifier`` checks signatures.
    public enum Route: String, Sendable, CustomStringConvertible {
        /// Precomputed tables for the base point and the key, on BoringSSL's P-256 assembly.
        case table
        /// swift-crypto's verify, as for a key that is not fixed.
        case swiftCrypto = "swift-crypto"

        public var description: String { rawValue }
    }

    /// The key whose signatures this verifier checks.
    public let publicKey: P256.Signing.PublicKey
    private let tables: Tables?

    /// Which way signatures are checked: ``Route/table`` once the self-test passed, else ``Route/swiftCrypto``.
    public var route: Route { tables == nil ? .swiftCrypto : .table }

    /// Builds the key's table and checks it, or settles for swift-crypto (see the type's documentation).
    public init(publicKey: P256.Signing.PublicKey) {
        self.init(publicKey: publicKey, allowTable: !Self.fallbackRequested)
    }

    /// As ``init(publicKey:)``; `allowTable: false` forces swift-crypto, for tests and comparisons.
    public init(publicKey: P256.Signing.PublicKey, allowTable: Bool) {
        self.publicKey = publicKey
        tables = allowTable ? Tables(checking: publicKey) : nil
    }

    /// Whether `rawSignature` (`r ‖ s`, 32 bytes each, as JWS writes it) is the key's signature over `digest`.
    /// Anything but 64 bytes, or r or s outside [1, n-1], is simply not valid, as with swift-crypto.
    public func isValidSignature(_ rawSignature: some ContiguousBytes, digest: some Digest) -> Bool {
        rawSignature.withUnsafeBytes { isValidSignature(raw: $0, digest: digest) }
    }

    func isValidSignature(raw: UnsafeRawBufferPointer, digest: some Digest) -> Bool {
        guard raw.count == 64 else { return false }
        if let tables { return tables.verify(raw: raw, digest: digest) }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw) else { return false }
        return publicKey.isValidSignature(signature, for: digest)
    }

    /// `SKAN_P256_TABLE=off` sends every fixed key to swift-crypto: a switch for an operator who distrusts the
    /// table path, and for benchmarks that show both paths on one build.
    static let fallbackRequested: Bool = ProcessInfo.processInfo.environment["SKAN_P256_TABLE"] == "off"
}

extension FixedKeyVerifier {
    /// The base point's table (shared by every key, built once per process) and one key's.
    struct Tables: Sendable {
        let generator: P256Table
        let key: P256Table

        /// The key's table, if this platform has the table path and both the process-wide and this key's
        /// self-tests pass.
        init?(checking publicKey: P256.Signing.PublicKey) {
            guard let generator = P256Table.checkedGenerator,
                  let key = P256Table(point: publicKey.x963Representation) else { return nil }
            self.generator = generator
            self.key = key
            guard SelfTest.passes(self, publicKey: publicKey) else { return nil }
        }

        init(generator: P256Table, key: P256Table) {
            self.generator = generator
            self.key = key
        }

        func verify(raw: UnsafeRawBufferPointer, digest: some Digest) -> Bool {
            guard raw.count == 64 else { return false }
            return digest.withUnsafeBytes { digestBytes in
                guard digestBytes.count == 32 else { return false }
                let base = raw.bindMemory(to: UInt8.self).baseAddress!
                return skan_p256_verify(generator.pointer, key.pointer,
                                        digestBytes.bindMemory(to: UInt8.self).baseAddress!, base, base + 32) == 1
            }
        }
    }
}

/// One point's table in C memory, freed with its last reference.
///
/// `@unchecked Sendable`: the table is written only inside `skan_p256_table_new` and read-only afterwards, so any
/// number of threads may verify with it at once.
final class P256Table: @unchecked Sendable {
    let pointer: OpaquePointer

    /// The table of a point given as X9.63 (`04 ‖ x ‖ y`); nil off Linux x86-64 or for anything not on the curve.
    init?(point x963: some DataProtocol) {
        let bytes = [UInt8](x963)
        guard bytes.count == 65, bytes[0] == 4 else { return nil }
        guard let pointer = bytes.withUnsafeBufferPointer({ buffer in
            skan_p256_table_new(buffer.baseAddress! + 1, buffer.baseAddress! + 33)
        }) else { return nil }
        self.pointer = pointer
    }

    deinit { skan_p256_table_free(pointer) }

    /// P-256's base point G (SEC 2 §2.4.2) as X9.63.
    static let generatorPoint: [UInt8] = [0x04] + hexBytes(
        "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
        + "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")

    /// G's table, built and checked once per process on first use; nil where the table path is unavailable or
    /// the check failed, which sends every fixed key to swift-crypto.
    static let checkedGenerator: P256Table? = {
        guard skan_p256_table_supported() != 0, let generator = P256Table(point: generatorPoint),
              FixedKeyVerifier.SelfTest.generatorPasses(generator) else { return nil }
        return generator
    }()

    static func hexBytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var digits = hex.utf8.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            bytes.append(UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)!)
        }
        return bytes
    }
}
