import Foundation
import SKANCore
import Testing

@Suite("Apple's keys")
struct KeyRingTests {
    @Test("Keys/apple PEM files hold the same keys as the built-in ring", arguments: [
        ("skadnetwork-p192.pem", ECCurve.p192, KeyRing.AppleKey.p192Base64),
        ("skadnetwork-p256.pem", ECCurve.p256, KeyRing.AppleKey.p256Base64),
    ])
    func pemFilesMatchConstants(file: String, curve: ECCurve, base64: String) throws {
        let pem = try String(contentsOf: Fixtures.keys.appendingPathComponent("apple/\(file)"), encoding: .utf8)
        let key = try ECPublicKey(text: pem, source: file)
        #expect(key.curve == curve)
        #expect(key.base64 == base64)
        #expect(KeyRing.apple.keys(on: curve).map(\.key.base64) == [base64])
    }
}

@Suite("Key ring lookups")
struct KeyRingLookupTests {
    static func key(_ name: String) throws -> ECPublicKey {
        try ECPublicKey(text: String(contentsOf: Fixtures.keys.appendingPathComponent("test/\(name)"), encoding: .utf8), source: name)
    }

    @Test("a key with a kid is found by that kid only, a key without one by its curve only")
    func kidAndCurve() throws {
        var ring = KeyRing.apple
        let network = try Self.key("ad-network-public-key.pem")
        ring.add(TrustedKey(name: "aak-test", key: network, kid: "test-kid/0"))
        #expect(ring.key(kid: "test-kid/0")?.name == "aak-test")
        #expect(ring.key(kid: "test-kid/1") == nil)
        #expect(ring.key(kid: "") == nil)
        // The AdAttributionKit key is P-256 but never judges an SKAdNetwork postback.
        #expect(ring.keys(on: .p256).map(\.name) == ["apple-p256"])

        // Replacing Apple's SKAdNetwork P-256 key keeps the keys found by kid.
        ring.replaceKeys(onCurveOf: TrustedKey(name: "rival", key: try Self.key("rival-network-public-key.pem")))
        #expect(ring.keys(on: .p256).map(\.name) == ["rival"])
        #expect(ring.key(kid: "test-kid/0")?.name == "aak-test")
        #expect(ring.keys.map(\.name).sorted() == ["aak-test", "apple-aak", "apple-p192", "rival"])
    }
}
