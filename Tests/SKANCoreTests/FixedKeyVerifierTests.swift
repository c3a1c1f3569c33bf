import Crypto
import Foundation
@testable import SKANCore
import Testing

/// The fixed-key table verifier (issue #40) against swift-crypto's verify, the reference it must equal on every
/// input: signatures that must verify, and the same ones damaged every way a sender could damage them.
@Suite("Fixed-key P-256 verifier")
struct FixedKeyVerifierTests {
    /// Where the table path exists, and is not switched off for this run, every fixed key must take it: a table
    /// that silently fell back would pass every agreement test below while measuring nothing.
    static var tableExpected: Bool {
        platformHasTable && ProcessInfo.processInfo.environment["SKAN_P256_TABLE"] != "off"
    }

    static var platformHasTable: Bool {
        #if arch(x86_64) && os(Linux)
        true
        #else
        false
        #endif
    }

    static var expectedRoute: FixedKeyVerifier.Route { tableExpected ? .table : .swiftCrypto }

    /// Every P-256 key the project ships with its private half: each signs fresh digests.
    static let signingKeys = ["ad-network", "rival-network", "simulated-apple-p256", "simulated-apple-aak"]

    /// Every P-256 key the project ships without one: Apple's production key and the two AdAttributionKit
    /// development keys (Base64 SubjectPublicKeyInfo, as the key ring holds them).
    static let publicOnlyKeys = [
        ("apple-p256", KeyRing.AppleKey.p256Base64),
        ("apple-aak-development-0", KeyRing.AppleKey.aakDevelopment0Base64),
        ("apple-aak-development-1", KeyRing.AppleKey.aakDevelopment1Base64),
    ]

    static func privateKey(_ name: String) throws -> P256.Signing.PrivateKey {
        try P256.Signing.PrivateKey(pemRepresentation: Fixtures.testKey("\(name)-private-key.pem"))
    }

    /// The table's verdict and swift-crypto's on one input; both must match `expected` when it is given.
    static func check(_ verifier: FixedKeyVerifier, _ raw: [UInt8], _ digest: RawDigest, expected: Bool? = nil,
                      _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let table = verifier.isValidSignature(raw, digest: digest)
        let reference = (try? P256.Signing.ECDSASignature(rawRepresentation: raw))
            .map { verifier.publicKey.isValidSignature($0, for: digest) } ?? false
        #expect(table == reference, "\(label): table \(table), swift-crypto \(reference)", sourceLocation: sourceLocation)
        if let expected {
            #expect(reference == expected, "\(label): swift-crypto says \(reference)", sourceLocation: sourceLocation)
        }
    }

    static let order = FixedKeyVerifier.SelfTest.order
    static let zero = [UInt8](repeating: 0, count: 32)
    static let ones = [UInt8](repeating: 0xff, count: 32)

    /// A valid signature (r, s) over `digest`, then every damage: both must agree on each, and on the ones whose
    /// answer is known, give it.
    static func checkDamaged(_ verifier: FixedKeyVerifier, r: [UInt8], s: [UInt8], digest: RawDigest,
                             random: inout some RandomNumberGenerator, _ label: String) {
        func flip(_ bytes: [UInt8]) -> [UInt8] {
            FixedKeyVerifier.SelfTest.flipped(bytes, bit: Int.random(in: 0..<256, using: &random))
        }
        check(verifier, r + s, digest, expected: true, "\(label) valid")
        check(verifier, r + FixedKeyVerifier.SelfTest.negated(s), digest, expected: true, "\(label) high s")
        check(verifier, flip(r) + s, digest, expected: false, "\(label) r flipped")
        check(verifier, r + flip(s), digest, expected: false, "\(label) s flipped")
        check(verifier, r + s, RawDigest(bytes: flip(digest.bytes)), expected: false, "\(label) digest flipped")
        check(verifier, s + r, digest, "\(label) r and s swapped")
        var plusOne = order
        plusOne[31] += 1
        for (name, bad) in [("0", zero), ("n", order), ("n + 1", plusOne), ("2^256 - 1", ones)] {
            check(verifier, bad + s, digest, expected: false, "\(label) r = \(name)")
            check(verifier, r + bad, digest, expected: false, "\(label) s = \(name)")
        }
    }

    @Test("every shipped P-256 key, Apple's included, gets a table that passes its self-test")
    func shippedKeysTakeTheTable() throws {
        for name in Self.signingKeys {
            let key = try ECPublicKey(text: Fixtures.testKey("\(name)-public-key.pem"), source: name)
            #expect(key.fixedKeyRoute == nil, "not prepared yet")
            #expect(key.forRepeatedVerification().fixedKeyRoute == Self.expectedRoute, "\(name)")
        }
        for (name, base64) in Self.publicOnlyKeys {
            let key = try ECPublicKey(text: base64, source: name).forRepeatedVerification()
            #expect(key.fixedKeyRoute == Self.expectedRoute, "\(name)")
        }
        // The trusted keys are prepared where they are loaded, with no flag.
        for trusted in KeyRing.apple.keys + KeyRing.appleAdAttributionKitDevelopment {
            #expect(trusted.key.fixedKeyRoute == (trusted.key.curve == .p256 ? Self.expectedRoute : nil), "\(trusted.name)")
        }
        let p192 = try ECPublicKey(text: Fixtures.testKey("p192-network-public-key.pem"))
        #expect(TrustedKey(name: "p192", key: p192).key.fixedKeyRoute == nil)
    }

    @Test("agrees with swift-crypto on signatures by shipped and random keys, valid and damaged",
          arguments: signingKeys + ["random-1", "random-2", "random-3", "random-4"])
    func agreesOnSignedDigests(keyName: String) throws {
        let privateKey = keyName.hasPrefix("random") ? P256.Signing.PrivateKey() : try Self.privateKey(keyName)
        let verifier = FixedKeyVerifier(publicKey: privateKey.publicKey)
        #expect(verifier.route == Self.expectedRoute)
        var random = SystemRandomNumberGenerator()
        // Random digests, and those at the edges of reduction mod n: 0, n - 1, n, n + 1 and 2^256 - 1.
        var minusOne = Self.order, plusOne = Self.order
        minusOne[31] -= 1
        plusOne[31] += 1
        let digests = (0..<16).map { _ in RawDigest.random() }
            + [Self.zero, minusOne, Self.order, plusOne, Self.ones].map { RawDigest(bytes: $0) }
        for (index, digest) in digests.enumerated() {
            let raw = [UInt8](try privateKey.signature(for: digest).rawRepresentation)
            Self.checkDamaged(verifier, r: Array(raw[..<32]), s: Array(raw[32...]), digest: digest, random: &random,
                              "\(keyName) #\(index)")
        }
        for index in 0..<16 {
            Self.check(verifier, RawDigest.random().bytes + RawDigest.random().bytes, RawDigest.random(),
                       "\(keyName) random signature #\(index)")
        }
    }

    @Test("agrees with swift-crypto on signatures that Apple's keys must accept, made without their private keys",
          arguments: publicOnlyKeys.map(\.0))
    func agreesOnPublicOnlyKeys(name: String) throws {
        let base64 = Self.publicOnlyKeys.first { $0.0 == name }!.1
        let publicKey = try P256.Signing.PublicKey(derRepresentation: Data(base64Encoded: base64)!)
        let verifier = FixedKeyVerifier(publicKey: publicKey)
        #expect(verifier.route == Self.expectedRoute)
        // With a zero digest u1 = 0, so r = x(u·Q) mod n and s = r / u sign for Q whatever u is.
        let peer = try P256.KeyAgreement.PublicKey(rawRepresentation: publicKey.rawRepresentation)
        let one = [UInt8](repeating: 0, count: 31) + [1]
        var random = SystemRandomNumberGenerator()
        var made = 0
        for index in 0..<12 {
            let u = P256.KeyAgreement.PrivateKey()
            let x = try u.sharedSecretFromKeyAgreement(with: peer).withUnsafeBytes { [UInt8]($0) }
            guard let r = FixedKeyVerifier.SelfTest.divide(x, one),
                  let s = FixedKeyVerifier.SelfTest.divide(r, [UInt8](u.rawRepresentation)) else { continue }
            made += 1
            Self.checkDamaged(verifier, r: r, s: s, digest: RawDigest(bytes: Self.zero), random: &random,
                              "\(name) #\(index)")
            Self.check(verifier, r + s, RawDigest.random(), expected: false, "\(name) #\(index) other digest")
        }
        #expect(made == (Self.platformHasTable ? 12 : 0), "signatures made with the table path's scalar division")
    }

    @Test("signatures that make the running sum meet its own addend verify as swift-crypto says")
    func doublingCases() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("FixedKeyCases/doubling-cases.json")
        let document = try Fixtures.json(url)
        let key = try P256.Signing.PublicKey(x963Representation: P256Table.hexBytes(document["key_x963"] as! String))
        let verifier = FixedKeyVerifier(publicKey: key)
        #expect(verifier.route == Self.expectedRoute)
        let cases = document["cases"] as! [[String: String]]
        #expect(cases.count == 6)
        for entry in cases {
            let digest = RawDigest(bytes: P256Table.hexBytes(entry["digest"]!))
            let raw = P256Table.hexBytes(entry["r"]!) + P256Table.hexBytes(entry["s"]!)
            Self.check(verifier, raw, digest, expected: true, entry["case"]!)
            Self.check(verifier, raw, RawDigest(bytes: FixedKeyVerifier.SelfTest.flipped(digest.bytes, bit: 3)),
                       expected: false, "\(entry["case"]!), digest flipped")
        }
    }

    @Test("forced off, a fixed key verifies through swift-crypto with the same answers")
    func forcedFallback() throws {
        let privateKey = try Self.privateKey("simulated-apple-p256")
        let fallback = FixedKeyVerifier(publicKey: privateKey.publicKey, allowTable: false)
        #expect(fallback.route == .swiftCrypto)
        var random = SystemRandomNumberGenerator()
        for index in 0..<4 {
            let digest = RawDigest.random()
            let raw = [UInt8](try privateKey.signature(for: digest).rawRepresentation)
            Self.checkDamaged(fallback, r: Array(raw[..<32]), s: Array(raw[32...]), digest: digest, random: &random,
                              "fallback #\(index)")
        }
        #expect(!fallback.isValidSignature([UInt8](repeating: 1, count: 63), digest: RawDigest.random()))
    }

    @Test("DER and ES256 signatures verify the same through a prepared key as through a plain one")
    func preparedKeyMatchesPlainKey() throws {
        let privateKey = try ECPrivateKey(pem: Fixtures.testKey("simulated-apple-p256-private-key.pem"))
        let plain = privateKey.publicKey
        let prepared = plain.forRepeatedVerification()
        #expect(prepared.fixedKeyRoute == Self.expectedRoute)
        #expect(prepared.spkiDER == plain.spkiDER)
        let p256 = try Self.privateKey("simulated-apple-p256")
        for index in 0..<8 {
            let message = Array("postback \(index)".utf8)
            let der = [UInt8](try p256.signature(for: message).derRepresentation)
            let raw = [UInt8](try p256.signature(for: message).rawRepresentation)
            #expect(prepared.isValidSignature(der, for: message) && plain.isValidSignature(der, for: message))
            #expect(prepared.isValidES256Signature(raw, for: message) && plain.isValidES256Signature(raw, for: message))
            let other = Array("postback \(index + 100)".utf8)
            #expect(!prepared.isValidSignature(der, for: other) && !plain.isValidSignature(der, for: other))
            #expect(!prepared.isValidES256Signature(raw, for: other) && !plain.isValidES256Signature(raw, for: other))
            // DER where ES256 wants raw, and raw where DER is wanted: refused by both.
            #expect(!prepared.isValidES256Signature(der, for: message) && !prepared.isValidSignature(raw, for: message))
        }
    }
}
