import Foundation
import SKANCore
import Testing

/// AdAttributionKit impressions (spec §8.1): signed by the ad network as a compact JWS under its id.
@Suite("AdAttributionKit impressions")
struct AAKImpressionTests {
    static func key(_ name: String) throws -> ECPrivateKey {
        let url = Fixtures.keys.appendingPathComponent("test/\(name)-private-key.pem")
        return try ECPrivateKey(pem: String(contentsOf: url, encoding: .utf8), source: name)
    }

    static let values = ["ad-network-id": "example.adattributionkit", "source-identifier": "5239",
                         "itunes-item-id": "525463029", "source-app-id": "1234567891",
                         "eligible-for-re-engagement": "true"]

    @Test("signs under the ad network's id and verifies with its public key only")
    func roundTrip() throws {
        let network = try Self.key("ad-network")
        let impression = try AAKImpression(values: Self.values, now: { Date(timeIntervalSince1970: 1_700_000_000) },
                                           makeNonce: { UUID(uuidString: "00000000-0000-4000-8000-000000000001")! })
        #expect(impression.timestamp == 1_700_000_000_000 && impression.eligibleForReengagement == true)
        let jws = try impression.signed(with: network)
        let header = try #require(Base64URL.decode(jws.split(separator: ".")[0]))
        #expect(String(decoding: header, as: UTF8.self) == #"{"kid":"example.adattributionkit","alg":"ES256"}"#)
        #expect(try AAKImpression.verify(jws, publicKey: network.publicKey).get() == impression)
        #expect(throws: SKANError.self) { try AAKImpression.verify(jws, publicKey: try Self.key("rival-network").publicKey).get() }
    }

    @Test("a kid that is not the payload's network, a P-192 key, and bad values are refused, naming why")
    func refusals() throws {
        let network = try Self.key("ad-network")
        var impression = try AAKImpression(values: Self.values)
        let payload = impression.payloadJSON
        let otherKid = try CompactJWS.es256(payload: payload, kid: "someone.else", key: network)
        let mismatch = AAKImpression.verify(otherKid, publicKey: network.publicKey)
        #expect(throws: SKANError.self) { try mismatch.get() }
        if case .failure(let error) = mismatch { #expect(error.reason.contains("is not the payload's ad-network-identifier")) }
        #expect(throws: SKANError.self) { try impression.signed(with: try Self.key("p192-network")) }
        impression.sourceIdentifier = 52_390
        #expect(throws: SKANError.self) { try impression.signed(with: network) }
        var values = Self.values
        values["itunes-item-id"] = "abc"
        do {
            _ = try AAKImpression(values: values, origin: "--")
            Issue.record("a text app id was taken")
        } catch {
            #expect(error.reason == #"--itunes-item-id must be an integer, got "abc""#)
        }
    }
}
