import Crypto
import Foundation
import SKANCore
import Testing

@Suite("Sign and verify round trips")
struct RoundTripTests {
    static let networkKey = try! ECPrivateKey(pem: Fixtures.testKey("ad-network-private-key.pem"))
    /// A network that registered in mid-2020 and still signs with prime192v1 (spec §1).
    static let p192NetworkKey = try! ECPrivateKey(pem: Fixtures.testKey("p192-network-private-key.pem"))

    static func networkKey(on curve: ECCurve) -> ECPrivateKey {
        curve == .p192 ? p192NetworkKey : networkKey
    }

    static func impression(_ version: ImpressionVersion, _ kind: AdKind) -> Impression {
        Impression(
            version: version, kind: kind, adNetworkID: "example123.skadnetwork",
            campaignID: version.usesSourceIdentifier ? nil : 42,
            sourceIdentifier: version.usesSourceIdentifier ? 5239 : nil,
            itunesItemID: 525463029, nonce: UUID(),
            sourceAppID: kind == .web || !version.hasVersionAndSource ? nil : 1234567891,
            sourceDomain: kind == .web ? "example.com" : nil, timestamp: 1_700_000_000_123)
    }

    static let combinations: [(ImpressionVersion, AdKind)] = ImpressionVersion.allCases.flatMap { version in
        AdKind.allCases.compactMap { kind in
            switch kind {
            case .viewThrough where version < .v2_2, .web where version < .v4_0: nil
            default: (version, kind)
            }
        }
    }

    @Test("every version and ad kind signs, prints in its shape, reads back and verifies, on both curves",
          arguments: combinations, ECCurve.allCases)
    func impressionRoundTrip(combination: (ImpressionVersion, AdKind), curve: ECCurve) throws {
        let (version, kind) = combination
        let key = Self.networkKey(on: curve)
        let signed = try ImpressionSigner(key: key).sign(Self.impression(version, kind))
        let json = signed.json()
        #expect(!json.contains("fidelity"), "fidelity-type is signed but never a parameter")
        let parsed = try SignedImpression.parse(Array(json.utf8)).get()
        #expect(parsed == signed)
        #expect(ImpressionVerifier(publicKey: key.publicKey).verify(parsed) == .valid)
        let other = try ECPrivateKey.generate(curve: curve)
        #expect(!ImpressionVerifier(publicKey: other.publicKey).verify(parsed).isValid)
    }

    @Test("the StoreKit shape uses Apple's parameter keys")
    func storeKitKeys() throws {
        let json = try ImpressionSigner(key: Self.networkKey).sign(Self.impression(.v4_0, .storeKitRendered)).json()
        for key in ["SKStoreProductParameterAdNetworkVersion", "SKStoreProductParameterAdNetworkSourceIdentifier",
                    "SKStoreProductParameterITunesItemIdentifier", "SKStoreProductParameterAdNetworkNonce",
                    "SKStoreProductParameterAdNetworkSourceAppStoreIdentifier", "SKStoreProductParameterAdNetworkTimestamp",
                    "SKStoreProductParameterAdNetworkAttributionSignature", "SKStoreProductParameterAdNetworkIdentifier"] {
            #expect(json.contains("\"\(key)\""), "\(key)")
        }
        let web = try ImpressionSigner(key: Self.networkKey).sign(Self.impression(.v4_0, .web)).json()
        #expect(web.contains("\"source_domain\":\"example.com\"") && web.contains("\"ad_network_id\""))
    }

    enum RuleBreak: String, CaseIterable, Sendable {
        case campaignZero, campaignHigh, viewThroughAt21, uppercaseNetwork, sourceIdentifierAt30

        func apply(to impression: inout Impression) {
            switch self {
            case .campaignZero: impression.campaignID = 0
            case .campaignHigh: impression.campaignID = 101
            case .viewThroughAt21: impression.version = .v2_1; impression.kind = .viewThrough
            case .uppercaseNetwork: impression.adNetworkID = "Example.skadnetwork"
            case .sourceIdentifierAt30: impression.sourceIdentifier = 12
            }
        }

        var reason: String {
            switch self {
            case .campaignZero: "campaign-id must be an integer 1...100, got 0"
            case .campaignHigh: "got 101"
            case .viewThroughAt21: "2.2 or later"
            case .uppercaseNetwork: "ad-network-id \"Example.skadnetwork\" is not a registered ad network id: those are lowercase"
            case .sourceIdentifierAt30: "only from version 4.0"
            }
        }
    }

    @Test("devices refuse impressions that break the rules", arguments: RuleBreak.allCases)
    func ruleBreaks(_ rule: RuleBreak) throws {
        var impression = Self.impression(.v3_0, .storeKitRendered)
        rule.apply(to: &impression)
        let error = #expect(throws: SKANError.self) { try ImpressionSigner(key: Self.networkKey).sign(impression) }
        #expect(error?.reason.contains(rule.reason) == true, "\(error?.reason ?? "")")
    }

    @Test("a 4.0 source identifier must have 2 to 4 digits", arguments: [9, 10, 9999, 10000])
    func sourceIdentifierDigits(value: Int) throws {
        var impression = Self.impression(.v4_0, .storeKitRendered)
        impression.sourceIdentifier = value
        #expect(((try? impression.validate()) != nil) == (10...9999).contains(value))
    }

    @Test("a signature over an uppercase nonce or the wrong field order is refused")
    func uppercaseNonceAndOrder() throws {
        let impression = Self.impression(.v3_0, .storeKitRendered)
        let text = impression.signedString.description.replacingOccurrences(of: "␣", with: "\u{2063}")
        let upper = text.replacingOccurrences(of: impression.nonceText, with: impression.nonce.uuidString.uppercased())
        let verifier = ImpressionVerifier(publicKey: Self.networkKey.publicKey)
        let upperSignature = Data(try Self.networkKey.signature(for: Array(upper.utf8))).base64EncodedString()
        #expect(verifier.verify(SignedImpression(impression: impression, signature: upperSignature)) != .valid)
        var fields = text.components(separatedBy: "\u{2063}")
        fields.swapAt(2, 3)
        let swapped = Data(try Self.networkKey.signature(for: Array(fields.joined(separator: "\u{2063}").utf8))).base64EncodedString()
        #expect(verifier.verify(SignedImpression(impression: impression, signature: swapped)) != .valid)
        let right = Data(try Self.networkKey.signature(for: Array(text.utf8))).base64EncodedString()
        #expect(verifier.verify(SignedImpression(impression: impression, signature: right)) == .valid)
    }

    static let simulatedApple: KeyRing = {
        let names = ["p192", "p256"]
        return KeyRing(names.map { name in
            TrustedKey(name: "simulated-\(name)", key: try! ECPublicKey(text: String(
                contentsOf: Fixtures.keys.appendingPathComponent("test/simulated-apple-\(name)-public-key.pem"), encoding: .utf8)))
        })
    }()

    static func signingKey(_ curve: ECCurve) throws -> ECPrivateKey {
        let name = curve == .p192 ? "p192" : "p256"
        return try ECPrivateKey(pem: String(
            contentsOf: Fixtures.keys.appendingPathComponent("test/simulated-apple-\(name)-private-key.pem"), encoding: .utf8))
    }

    @Test("postbacks of every version, signed with the simulated Apple keys, verify only where those keys are trusted",
          arguments: PostbackVersion.allCases)
    func postbackRoundTrip(version: PostbackVersion) throws {
        var postback = Postback(
            version: version, adNetworkID: "example123.skadnetwork",
            campaignID: version < .v4_0 ? 7 : nil, sourceIdentifier: version < .v4_0 ? nil : "0042",
            appID: 525463029, transactionID: UUID().uuidString.lowercased(),
            redownload: version >= .v2_0 ? false : nil, sourceAppID: version >= .v2_0 ? 0 : nil,
            fidelityType: version >= .v2_2 ? 0 : nil, didWin: version >= .v3_0 ? true : nil,
            postbackSequenceIndex: version >= .v4_0 ? 2 : nil, conversionValue: 5)
        let key = try Self.signingKey(version.curve)
        postback.attributionSignature = Data(try key.signature(for: postback.signedString(version.layout).bytes)).base64EncodedString()
        let verdict = PostbackVerifier(keyRing: Self.simulatedApple).verify(Array(postback.json.utf8))
        guard case .valid(let verified) = verdict else { Issue.record("\(verdict)"); return }
        #expect(verified.keyName == "simulated-\(version.curve == .p192 ? "p192" : "p256")")
        #expect(verified.postback == postback)
        #expect(PostbackVerifier().verify(postback).status == .invalidSignature)
    }
}
