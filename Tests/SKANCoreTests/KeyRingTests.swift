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
