import Foundation
import SKANCore

/// Shared by the store and collector tests: postbacks signed by the simulated Apple P-256 test key (`Keys/test/`), and a verifier that trusts it.
public enum TestPostbacks {
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let keys = packageRoot.appendingPathComponent("Keys/test")

    public static let privateKey: ECPrivateKey = {
        let pem = try! String(contentsOf: keys.appendingPathComponent("simulated-apple-p256-private-key.pem"),
                              encoding: .utf8)
        return try! ECPrivateKey(pem: pem, source: "simulated-apple-p256-private-key.pem")
    }()

    /// "Apple" for AdAttributionKit postbacks in the tests, under ``aakKid``.
    public static let aakPrivateKey: ECPrivateKey = {
        let pem = try! String(contentsOf: keys.appendingPathComponent("simulated-apple-aak-private-key.pem"), encoding: .utf8)
        return try! ECPrivateKey(pem: pem, source: "simulated-apple-aak-private-key.pem")
    }()
    public static let aakKid = "simulated-apple-aak/0"

    /// Trusts the simulated Apple keys (SKAdNetwork and, by kid, AdAttributionKit) beside Apple's own keys, so
    /// Apple's samples verify too.
    public static let verifier: AttributionVerifier = {
        var ring = KeyRing.apple
        ring.add(TrustedKey(name: "simulated-apple-p256", key: privateKey.publicKey))
        ring.add(TrustedKey(name: "simulated-apple-aak", key: aakPrivateKey.publicKey, kid: aakKid))
        return AttributionVerifier(keyRing: ring)
    }()

    /// A signed AdAttributionKit postback body: the JWS and an unsigned fine value.
    public static func aakBody(postbackIdentifier: String = UUID().uuidString.lowercased(),
                               adNetwork: String = "example.adattributionkit", window: Int = 0,
                               conversionType: String = "download") -> [UInt8] {
        let payload = #"{"advertised-item-identifier":525463029,"conversion-type":"\#(conversionType)","ad-network-identifier":"\#(adNetwork)","impression-type":"app-impression","postback-sequence-index":\#(window),"source-identifier":"5239","did-win":true,"postback-identifier":"\#(postbackIdentifier)","marketplace-identifier":"com.apple.AppStore"}"#
        let jws = try! CompactJWS.es256(payload: payload, kid: aakKid, key: aakPrivateKey)
        return Array(#"{"jws-string":"\#(jws)","conversion-value":12,"ad-interaction-type":"click"}"#.utf8)
    }

    /// A signed 4.0 postback.
    public static func postback(transactionID: String = UUID().uuidString.lowercased(), adNetworkID: String = "example.skadnetwork",
                         sequenceIndex: Int = 0) -> Postback {
        var postback = Postback(
            version: .v4_0, adNetworkID: adNetworkID, sourceIdentifier: "5239", appID: 525463029,
            transactionID: transactionID, redownload: false, sourceAppID: 1234567891, fidelityType: 1, didWin: true,
            postbackSequenceIndex: sequenceIndex, conversionValue: 20)
        let signature = try! privateKey.signature(for: postback.signedString(postback.version.layout).bytes)
        postback.attributionSignature = Data(signature).base64EncodedString()
        return postback
    }

    /// The verified form of `postback` and its body: after a change to what Apple does not sign (a conversion value,
    /// a coarse value, a country), the signature still holds.
    public static func verified(_ postback: Postback) -> (VerifiedAttribution, [UInt8]) {
        let body = Array(postback.json.utf8)
        guard case .valid(let verified) = verifier.verify(body) else { fatalError("the test key did not verify") }
        return (verified, body)
    }

    /// The verified form of a fresh signed postback.
    public static func verified(transactionID: String = UUID().uuidString.lowercased(), adNetworkID: String = "example.skadnetwork",
                         sequenceIndex: Int = 0) -> (VerifiedAttribution, [UInt8]) {
        let body = Array(postback(transactionID: transactionID, adNetworkID: adNetworkID, sequenceIndex: sequenceIndex).json.utf8)
        guard case .valid(let verified) = verifier.verify(body) else { fatalError("the test key did not verify") }
        return (verified, body)
    }
}
