import Foundation
import SKANCore
import Testing

/// Changing any signed field breaks the signature; changing an unsigned one does not.
@Suite("Tampering")
struct TamperTests {
    static func validPostbacks() throws -> [(String, Postback, KeyRing)] {
        var cases: [(String, Postback, KeyRing)] = []
        for file in VectorTests.applePostbacks {
            let json = try JSONSerialization.data(withJSONObject: Fixtures.json(file)["postback"]!)
            cases.append((file.lastPathComponent, try Postback.parse(json).get(), .apple))
        }
        let document = try Fixtures.json(Fixtures.vectors.appendingPathComponent("postbacks/selfsigned-consistency-vectors.json"))
        let keys = document["public_keys"] as! [String: String]
        let ring = KeyRing(try keys.map { TrustedKey(name: $0.key, key: try ECPublicKey(text: $0.value)) })
        for vector in document["vectors"] as! [[String: Any]] {
            let json = try JSONSerialization.data(withJSONObject: vector["postback"]!)
            cases.append((vector["name"] as! String, try Postback.parse(json).get(), ring))
        }
        return cases
    }

    /// A different but well-formed value for a signed field.
    static func tampered(_ postback: Postback, _ field: PostbackField) -> Postback {
        var copy = postback
        switch field {
        case .version: copy.version = postback.version == .v3_0 ? .v2_2 : .v3_0
        case .adNetworkID: copy.adNetworkID += "x"
        case .campaignID: copy.campaignID = (postback.campaignID ?? 1) % 100 + 1
        case .sourceIdentifier: copy.sourceIdentifier = postback.sourceIdentifier == "39" ? "38" : "39"
        case .appID: copy.appID += 1
        case .transactionID: copy.transactionID = String(postback.transactionID.dropLast()) + (postback.transactionID.hasSuffix("0") ? "1" : "0")
        case .redownload: copy.redownload?.toggle()
        case .sourceAppID: copy.sourceAppID! += 1
        case .sourceDomain: copy.sourceDomain = "example.org"
        case .fidelityType: copy.fidelityType = 1 - (postback.fidelityType ?? 0)
        case .didWin: copy.didWin?.toggle()
        case .postbackSequenceIndex: copy.postbackSequenceIndex = ((postback.postbackSequenceIndex ?? 0) + 1) % 3
        default: Issue.record("\(field) is not signed")
        }
        return copy
    }

    @Test("every signed field, changed, makes every valid vector invalid; the conversion value does not")
    func tamperEverySignedField() throws {
        var checked = 0
        for (name, postback, ring) in try Self.validPostbacks() {
            let verifier = PostbackVerifier(keyRing: ring)
            guard case .valid(let verified) = verifier.verify(postback) else {
                Issue.record("\(name) should be valid")
                continue
            }
            for field in verified.signedFields {
                let verdict = verifier.verify(Self.tampered(postback, field))
                #expect(!verdict.isValid, "\(name): changing \(field) kept it valid")
                checked += 1
            }
            // The same postback re-serialised by SKANKit still verifies: the writer keeps every signed value.
            #expect(verifier.verify(Array(postback.json.utf8)).isValid, "\(name) after a JSON round trip")
            var claimed = postback
            if postback.coarseConversionValue != nil {
                claimed.coarseConversionValue = postback.coarseConversionValue == .high ? .low : .high
            } else {
                claimed.conversionValue = ((postback.conversionValue ?? 0) + 17) % 64
            }
            #expect(verifier.verify(claimed).isValid, "\(name): the conversion value is not signed")
        }
        #expect(checked > 100)
    }

    @Test("a signature that is not Base64 or not DER is invalid-signature, never a crash",
          arguments: ["%%%not-base64%%%", "", "AAAA", "MEUCIQD4", String(repeating: "A", count: 4000)])
    func garbageSignature(signature: String) throws {
        var postback = try Self.validPostbacks()[0].1
        postback.attributionSignature = signature.isEmpty ? "=" : signature
        #expect(PostbackVerifier().verify(postback).status == .invalidSignature)
    }
}
