import Foundation
import SKANCore
import Testing

/// The one impression rule of every front end: the framework chosen once by the request, every impression checked
/// and every key found before any is signed, and a signed impression recognised once when it is read back.
@Suite("Impression batches of both frameworks")
struct ImpressionBatchTests {
    static let skadnetwork = ["version": "4.0", "ad-network-id": "example.skadnetwork", "source-identifier": "5239",
                              "itunes-item-id": "525463029", "source-app-id": "0"]
    static let adAttributionKit = ["ad-network-id": "example.adattributionkit", "source-identifier": "5239",
                                   "itunes-item-id": "525463029"]
    static let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_700_000_000) }
    static let nonce: @Sendable () -> UUID = { UUID(uuidString: "68753A44-4D6F-1226-9C60-0050E4C00067")! }

    static func sign(_ requests: [ImpressionRequest], keys: [String: ECPrivateKey]) throws
        -> Result<[SignedAttributionImpression], ImpressionBatch.Refusal> {
        ImpressionBatch.sign(requests, keys: { keys[$0] }, now: now, makeNonce: nonce)
    }

    /// The kind of a refusal, `nil` when the impression is valid.
    static func kind<T>(_ result: Result<T, ImpressionRefusal>) -> ImpressionRefusal.Kind? {
        if case .failure(let refusal) = result { refusal.kind } else { nil }
    }

    static func keys() throws -> [String: ECPrivateKey] {
        let key = try AAKImpressionTests.key("ad-network")
        return ["example.skadnetwork": key, "example.adattributionkit": key,
                "legacy.adattributionkit": try AAKImpressionTests.key("p192-network")]
    }

    @Test("both frameworks sign side by side, in order, and read back as what they are")
    func bothFrameworks() throws {
        let signed = try Self.sign([ImpressionRequest(values: Self.skadnetwork),
                                    ImpressionRequest(framework: .adAttributionKit, values: Self.adAttributionKit)],
                                   keys: Self.keys()).get()
        #expect(signed.map(\.framework) == [.skadnetwork, .adAttributionKit])
        #expect(signed[1].json.hasPrefix(#"{"jws":"eyJ"#))
        let publicKey = try AAKImpressionTests.key("ad-network").publicKey
        for token in signed {
            let read = try SignedAttributionImpression.parse(Array(token.json.utf8)).get()
            #expect(read.framework == token.framework)
            #expect(try read.verify(publicKey: publicKey).get().framework == token.framework)
        }
        let rival = try AAKImpressionTests.key("rival-network").publicKey
        for token in signed {
            #expect(Self.kind(token.verify(publicKey: rival)) == .invalidSignature)
        }
    }

    @Test("a bad request, a network without a key, or a key its framework cannot use signs nothing, naming the request",
          arguments: [
              (ImpressionRequest(framework: .adAttributionKit, values: ["source-identifier": "52390", "itunes-item-id": "1", "ad-network-id": "example.adattributionkit"]),
               "source-identifier must have 2 to 4 digits"),
              (ImpressionRequest(values: ["version": "4.0", "ad-network-id": "nobody.skadnetwork", "source-identifier": "5239", "itunes-item-id": "1", "source-app-id": "0"]),
               #"ad-network-id "nobody.skadnetwork" has no key in this signer"#),
              (ImpressionRequest(framework: .adAttributionKit, values: ["ad-network-id": "legacy.adattributionkit", "source-identifier": "5239", "itunes-item-id": "1"]),
               "P-256"),
              (ImpressionRequest(framework: .adAttributionKit, values: ["version": "4.0"]),
               "version is for SKAdNetwork impressions; an AdAttributionKit impression takes ad-network-id, "),
              (ImpressionRequest(values: ["eligible-for-re-engagement": "true"]),
               "eligible-for-re-engagement is for AdAttributionKit impressions"),
              (ImpressionRequest(values: ["colour": "red"]),
               "colour is not a field of an SKAdNetwork impression; fields are version, "),
              (ImpressionRequest(framework: .adAttributionKit, values: Self.adAttributionKit, format: .webResponse),
               "format is for SKAdNetwork impressions"),
          ])
    func refusals(bad: ImpressionRequest, reason: String) throws {
        let result = try Self.sign([ImpressionRequest(values: Self.skadnetwork), bad], keys: Self.keys())
        guard case .failure(let refusal) = result else {
            Issue.record("signed \(bad)")
            return
        }
        #expect(refusal.index == 1)
        #expect(refusal.reason.contains(reason), "\(refusal.reason)")
    }

    @Test("a service's members name the framework, or the shape; \"format\": \"aak\" still means AdAttributionKit")
    func namedMembers() throws {
        #expect(try ImpressionRequest(named: ["framework": "adattributionkit"]).framework == .adAttributionKit)
        #expect(try ImpressionRequest(named: ["framework": "aak"]).framework == .adAttributionKit)
        #expect(try ImpressionRequest(named: ["format": "aak", "nonce": "x"]) == ImpressionRequest(framework: .adAttributionKit, values: ["nonce": "x"]))
        #expect(try ImpressionRequest(named: ["format": "web"]) == ImpressionRequest(values: [:], format: .webResponse))
        #expect(try ImpressionRequest(named: [:]).framework == .skadnetwork)
        for (values, reason) in [
            (["framework": "xyz"], #"framework must be skadnetwork or adattributionkit, got "xyz""#),
            (["format": "jws"], #"format must be storekit, skadimpression, web, got "jws""#),
            (["framework": "skadnetwork", "format": "aak"], #"format "aak" is an AdAttributionKit impression, and framework says skadnetwork"#),
        ] {
            let error = #expect(throws: SKANError.self) { try ImpressionRequest(named: values) }
            #expect(error?.reason == reason)
        }
    }

    @Test("an AdAttributionKit token is refused as a device refuses it: malformed, signature, or fields")
    func adAttributionKitRefusalKinds() throws {
        let key = try AAKImpressionTests.key("ad-network")
        var impression = try AAKImpression(values: Self.adAttributionKit)
        #expect(Self.kind(SignedAttributionImpression.adAttributionKit(jws: "a.b").verify(publicKey: key.publicKey)) == .malformed)
        let otherKid = try CompactJWS.es256(payload: impression.payloadJSON, kid: "someone.else", key: key)
        #expect(Self.kind(SignedAttributionImpression.adAttributionKit(jws: otherKid).verify(publicKey: key.publicKey)) == .invalidSignature)
        impression.sourceIdentifier = 52_390
        let outOfRange = try CompactJWS.es256(payload: impression.payloadJSON, kid: impression.adNetworkIdentifier, key: key)
        #expect(Self.kind(SignedAttributionImpression.adAttributionKit(jws: outOfRange).verify(publicKey: key.publicKey)) == .invalidFields)
        // A jws that is not a string is no AdAttributionKit impression, and no SKAdNetwork shape either.
        #expect(Self.kind(SignedAttributionImpression.parse(Array(#"{"jws":1}"#.utf8))) == .malformed)
    }
}
