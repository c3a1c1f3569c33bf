import Foundation
import SKANCore
import Testing

/// Every vector file is judged as its label says.
@Suite("Shared vectors")
struct VectorTests {
    /// Argument lists below run zero cases when a folder is empty, and a test with no cases passes: this one
    /// fails instead, so a lost vector cannot pass unnoticed.
    @Test("the package holds every vector folder with its files", arguments: [("postbacks", 8), ("negative", 3), ("impressions", 3)])
    func vectorsPresent(folder: String, count: Int) {
        #expect(Fixtures.vectorFiles(folder).count == count, "\(Fixtures.vectors.path)/\(folder)")
        #expect(Self.applePostbacks.count == 7)
    }

    @Test("the package's copies are the shared set's, byte for byte",
          .enabled(if: FileManager.default.fileExists(atPath: Fixtures.sharedVectors.path),
                   "needs ../shared/vectors beside the package"))
    func copiesMatchShared() throws {
        for folder in ["postbacks", "negative", "impressions"] {
            let shared = Fixtures.vectorFiles(folder, in: Fixtures.sharedVectors)
            #expect(shared.map(\.lastPathComponent) == Fixtures.vectorFiles(folder).map(\.lastPathComponent), "\(folder)")
            for file in shared {
                let copy = Fixtures.vectors.appendingPathComponent(folder).appendingPathComponent(file.lastPathComponent)
                #expect(try Data(contentsOf: file) == Data(contentsOf: copy), "\(folder)/\(file.lastPathComponent)")
            }
        }
    }

    static let applePostbacks = Fixtures.vectorFiles("postbacks").filter { $0.lastPathComponent.hasPrefix("skan-") }

    @Test("Apple-signed postbacks verify under Apple's keys, with the labelled signed string",
          arguments: applePostbacks)
    func applePostbackVerifies(file: URL) throws {
        let vector = try Fixtures.json(file)
        #expect(vector["verified"] as? Bool == true)
        let postbackJSON = try JSONSerialization.data(withJSONObject: vector["postback"]!)
        let verdict = PostbackVerifier().verify(postbackJSON)
        guard case .valid(let verified) = verdict else {
            Issue.record("\(file.lastPathComponent): \(verdict.status) \(verdict.reason ?? "")")
            return
        }
        #expect(verified.keyName == "apple-p256")
        let labelledFields = vector["signed_fields_in_order"] as! [String]
        #expect(verified.signedFields.map(\.key) == labelledFields)
        #expect(verified.postback.signedString(verified.layout).bytes == Array((vector["signed_string"] as! String).utf8))
        #expect(verified.claimedFields.contains(.conversionValue) == verified.postback.has(.conversionValue))
    }

    @Test("The 2.2 test-mode postback matches only the 2.0 order and says so")
    func testModeFallback() throws {
        let file = Fixtures.vectors.appendingPathComponent("postbacks/skan-2.2-testmode-2.1-layout.json")
        let postbackJSON = try JSONSerialization.data(withJSONObject: Fixtures.json(file)["postback"]!)
        let verdict = PostbackVerifier().verify(postbackJSON)
        guard case .valid(let verified) = verdict else { Issue.record("not valid: \(verdict)"); return }
        #expect(verified.layout == .v2_2SignedAs2_0)
        #expect(verified.claimedFields.contains(.fidelityType))
        #expect(verdict.reason?.contains("fidelity-type") == true)
    }

    @Test("Third-party self-signed vectors verify under their own keys and not under Apple's")
    func selfSignedVectors() throws {
        let file = Fixtures.vectors.appendingPathComponent("postbacks/selfsigned-consistency-vectors.json")
        let document = try Fixtures.json(file)
        let keys = document["public_keys"] as! [String: String]
        let ring = KeyRing(try keys.sorted { $0.key < $1.key }.map {
            TrustedKey(name: $0.key, key: try ECPublicKey(text: $0.value, source: $0.key))
        })
        let vectors = document["vectors"] as! [[String: Any]]
        #expect(vectors.count == 15)
        for vector in vectors {
            let name = vector["name"] as! String
            let json = try JSONSerialization.data(withJSONObject: vector["postback"]!)
            let verdict = PostbackVerifier(keyRing: ring).verify(json)
            guard case .valid(let verified) = verdict else {
                Issue.record("\(name): \(verdict.status) \(verdict.reason ?? "")")
                continue
            }
            #expect(verified.keyName == vector["key"] as? String, "\(name)")
            #expect(verified.signedFields.map(\.key) == vector["signed_fields_in_order"] as? [String], "\(name)")
            #expect(verified.postback.signedString(verified.layout).bytes == Array((vector["signed_string"] as! String).utf8))
            #expect(PostbackVerifier().verify(json).status == .invalidSignature, "\(name) must not verify under Apple's keys")
        }
    }

    @Test("Negative vectors do not verify", arguments: Fixtures.vectorFiles("negative"))
    func negativeVectorsFail(file: URL) throws {
        let data = try Fixtures.data(file)
        let verdict = PostbackVerifier().verify(record: data)
        #expect(!verdict.isValid, "\(file.lastPathComponent)")
        if file.lastPathComponent.hasPrefix("negative-skan") {
            #expect(verdict.status == .invalidSignature)
        }
    }

    static let impressionFiles = Fixtures.vectorFiles("impressions")

    @Test("Apple's sample impressions verify with the sample ad network key", arguments: impressionFiles)
    func sampleImpressionsVerify(file: URL) throws {
        let vector = try Fixtures.json(file)
        let verification = vector["verification"] as! [String: Any]
        let key = try ECPublicKey(text: verification["public_key_b64"] as! String)
        let published = try JSONSerialization.data(withJSONObject: vector["impression_as_published"]!)
        let signed = try SignedImpression.parse(published).get()
        #expect(signed.impression.signedString.bytes == Array((vector["signed_string"] as! String).utf8))
        #expect(signed.impression.signedFieldNames.map { $0.replacingOccurrences(of: "-", with: "_") }
                == (vector["signed_fields_in_order"] as! [String]).map { $0.replacingOccurrences(of: "-", with: "_") })
        #expect(ImpressionVerifier(publicKey: key).verify(signed) == .valid)
    }
}
