import Foundation
import SKANCore
import SKANTestSupport
import Testing

/// Ad network keys as networks really hold them: P-256, and P-192 for networks that registered in mid-2020 and
/// still sign with it (spec §1). A key on another curve is refused by name; a signature that is not DER is named.
@Suite("Impression keys on both curves", .temporaryFolder)
struct ImpressionCurveTests {
    static let p192Key = RoundTripTests.p192NetworkKey
    static let p256Key = RoundTripTests.networkKey

    /// A 3.0 view-through impression, the kind the captured production P-192 impressions are.
    static func signed(with key: ECPrivateKey) throws -> SignedImpression {
        try ImpressionSigner(key: key).sign(RoundTripTests.impression(.v3_0, .viewThrough))
    }

    static func resigned(_ signed: SignedImpression, signature: [UInt8]) -> SignedImpression {
        SignedImpression(impression: signed.impression, signature: Data(signature).base64EncodedString())
    }

    @Test("the P-192 test network's public key file holds its private key's public half")
    func p192KeyPair() throws {
        let publicKey = try ECPublicKey(text: try Fixtures.testKey("p192-network-public-key.pem"))
        #expect(publicKey.curve == .p192)
        #expect(publicKey.spkiDER == Self.p192Key.publicKey.spkiDER)
    }

    @Test("a P-192 impression signed here verifies under openssl, and one openssl signs verifies here")
    func opensslAgrees() throws {
        let signed = try Self.signed(with: Self.p192Key)
        let folder = try TemporaryFolder.current.url
        func file(_ name: String, _ bytes: [UInt8]) throws -> String {
            let url = folder.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url.path
        }
        let message = try file("signed-string", signed.impression.signedString.bytes)
        let ours = try file("ours.der", Array(Data(base64Encoded: signed.signature)!))
        let publicKey = try file("public.pem", Array(try Fixtures.testKey("p192-network-public-key.pem").utf8))
        let privateKey = try file("private.pem", Array(try Fixtures.testKey("p192-network-private-key.pem").utf8))

        let check = try Fixtures.openssl(["dgst", "-sha256", "-verify", publicKey, "-signature", ours, message])
        #expect(check.status == 0 && check.output.contains("Verified OK"), "\(check.output)")

        let theirs = folder.appendingPathComponent("theirs.der").path
        #expect(try Fixtures.openssl(["dgst", "-sha256", "-sign", privateKey, "-out", theirs, message]).status == 0)
        let theirSignature = Array(try Data(contentsOf: URL(fileURLWithPath: theirs)))
        let verifier = ImpressionVerifier(publicKey: Self.p192Key.publicKey)
        #expect(verifier.verify(Self.resigned(signed, signature: theirSignature)) == .valid)
    }

    /// Ways a signature can fail to be DER.
    enum NotDER: String, CaseIterable, Sendable {
        /// The fixed-width `r ‖ s` of the same signature, as JWS writes it.
        case rawRS
        /// Text that happens to be Base64.
        case text
        /// A valid DER signature with a byte after it (strict DER has nothing after the SEQUENCE).
        case trailingByte
    }

    @Test("a signature that is not DER is named as such, not as a mismatch", arguments: ECCurve.allCases, NotDER.allCases)
    func notDERIsNamed(curve: ECCurve, shape: NotDER) throws {
        let key = RoundTripTests.networkKey(on: curve)
        let signed = try Self.signed(with: key)
        let der = Array(Data(base64Encoded: signed.signature)!)
        let width = curve == .p192 ? 24 : 32
        let bytes: [UInt8] = switch shape {
        case .rawRS: Self.rawRS(der, width: width)
        case .text: Array("this is not a signature at all".utf8)
        case .trailingByte: der + [0]
        }
        let verdict = ImpressionVerifier(publicKey: key.publicKey).verify(Self.resigned(signed, signature: bytes))
        guard case .invalidSignature(let reason) = verdict else {
            Issue.record("expected invalid-signature, got \(verdict)")
            return
        }
        #expect(reason.contains("not a DER ECDSA signature for a \(curve) key"), "\(reason)")
        #expect(!reason.contains("does not match"), "\(reason)")
        #expect(reason.contains("raw r ‖ s") == (shape == .rawRS), "\(reason)")
    }

    @Test("a DER signature under the wrong key does not match, and one from a P-256 key checked with P-192 says so")
    func wrongKeyOnEitherCurve() throws {
        let p192Signed = try Self.signed(with: Self.p192Key)
        let otherP192 = try ECPrivateKey.generate(curve: .p192)
        #expect(ImpressionVerifier(publicKey: otherP192.publicKey).verify(p192Signed)
                == .invalidSignature("the signature does not match \(p192Signed.impression.signedFieldNames.joined(separator: ", ")) under the given P-192 key"))
        let underP256 = ImpressionVerifier(publicKey: Self.p256Key.publicKey).verify(p192Signed)
        #expect(underP256 == .invalidSignature("the signature does not match \(p192Signed.impression.signedFieldNames.joined(separator: ", ")) under the given P-256 key"))

        let p256Signed = try Self.signed(with: Self.p256Key)
        guard case .invalidSignature(let reason) = ImpressionVerifier(publicKey: Self.p192Key.publicKey).verify(p256Signed) else {
            Issue.record("a P-256 signature passed a P-192 key")
            return
        }
        // Its integers are up to 32 bytes, too long for P-192's 24 (both fitting 24 has a chance of 2⁻¹²⁸).
        #expect(reason.contains("P-256-sized"), "\(reason)")
    }

    @Test("a P-384 key, private or public, is refused with its curve and the two that are accepted")
    func p384Refused() throws {
        let privatePEM = try Fixtures.openssl(["ecparam", "-name", "secp384r1", "-genkey", "-noout"]).output
        let publicPEM = try Fixtures.openssl(["ec", "-pubout"], input: privatePEM).output
        #expect(publicPEM.contains("BEGIN PUBLIC KEY"))
        let errors = [
            #expect(throws: SKANError.self) { try ECPrivateKey(pem: privatePEM, source: "p384.pem") },
            #expect(throws: SKANError.self) { try ECPublicKey(text: publicPEM, source: "p384.pem") },
        ]
        for error in errors {
            #expect(error?.code == .unsupportedCurve)
            #expect(error?.reason == "p384.pem: the key is on secp384r1 (P-384), expected prime256v1 (P-256) or prime192v1 (P-192)")
        }
    }

    /// `r ‖ s`, each left-padded to `width` bytes, from the DER that ``ImpressionSigner`` writes
    /// (short-form lengths: `30 len 02 lr r 02 ls s`).
    static func rawRS(_ der: [UInt8], width: Int) -> [UInt8] {
        var raw: [UInt8] = []
        var offset = 2
        for _ in 0..<2 {
            let length = Int(der[offset + 1])
            let integer = der[(offset + 2)..<(offset + 2 + length)].drop { $0 == 0 }
            raw += [UInt8](repeating: 0, count: width - integer.count) + integer
            offset += 2 + length
        }
        return raw
    }
}
