import Crypto
import Foundation
import SKANCore
import Testing

/// AdAttributionKit postbacks: strict JWS, ES256 only, the key by kid only (spec §8.2).
@Suite("AdAttributionKit postbacks")
struct AAKVerifierTests {
    static let kid = "simulated-apple-aak/0"
    static let key: ECPrivateKey = {
        let url = Fixtures.keys.appendingPathComponent("test/simulated-apple-aak-private-key.pem")
        return try! ECPrivateKey(pem: String(contentsOf: url, encoding: .utf8), source: "simulated-apple-aak")
    }()
    /// Apple's production keys and the test key under its kid.
    static let ring: KeyRing = {
        var ring = KeyRing.apple
        ring.add(TrustedKey(name: "simulated-apple-aak", key: key.publicKey, kid: kid))
        return ring
    }()
    static let verifier = AttributionVerifier(keyRing: ring)

    static let payload = #"{"advertised-item-identifier":525463029,"conversion-type":"download","marketplace-identifier":"com.apple.AppStore","ad-network-identifier":"example.adattributionkit","impression-type":"app-impression","postback-sequence-index":0,"source-identifier":"5239","did-win":true,"postback-identifier":"0d3a0b4e-3f52-4a0a-9c39-1c0e6a3c2b1f","publisher-item-identifier":1234567891}"#

    static func body(jws: String, outer: String = #","conversion-value":20,"ad-interaction-type":"click""#) -> [UInt8] {
        Array(#"{"jws-string":"\#(jws)"\#(outer)}"#.utf8)
    }

    static func signed(_ payload: String = payload, kid: String = kid) throws -> String {
        try CompactJWS.es256(payload: payload, kid: kid, key: key)
    }

    static func refusal(_ verdict: AttributionVerdict) -> AttributionRefusal? {
        if case .refused(let refusal) = verdict { return refusal }
        return nil
    }

    @Test("a postback signed under a trusted kid verifies, its fields in neutral terms")
    func roundTrip() throws {
        let verdict = Self.verifier.verify(Self.body(jws: try Self.signed()))
        guard case .valid(let verified) = verdict else { Issue.record("refused: \(verdict.reason ?? "")"); return }
        #expect(verified.framework == .adAttributionKit)
        #expect(verified.keyName == "simulated-apple-aak")
        #expect(verified.scheme == Self.kid)
        let fields = verified.fields
        #expect(fields.network == "example.adattributionkit")
        #expect(fields.dedupID == "0d3a0b4e-3f52-4a0a-9c39-1c0e6a3c2b1f")
        #expect(fields.appID == 525463029 && fields.sourceIdentifier == "5239" && fields.sourceAppID == 1234567891)
        #expect(fields.conversionType == .download && fields.didWin == true && fields.window == 0)
        #expect(fields.marketplace == "com.apple.AppStore" && fields.impressionType == "app-impression")
        #expect(fields.conversionValue == 20 && fields.interaction == .click && fields.frameworkVersion == nil)
        guard case .adAttributionKit(let detail) = verified.detail else { Issue.record("not an AAK detail"); return }
        #expect(detail.claimedFields == ["conversion-value", "ad-interaction-type"])
        #expect(detail.signedFields.first == "advertised-item-identifier" && detail.signedFields.count == 10)
    }

    @Test("re-engagement, coarse values, country and relay extras are read; unknown payload members kept")
    func otherValues() throws {
        let payload = Self.payload.replacingOccurrences(of: #""download""#, with: #""re-engagement""#)
            .replacingOccurrences(of: "}", with: #","future-field":7}"#)
        let verdict = Self.verifier.verify(Self.body(jws: try Self.signed(payload),
                                                     outer: #","coarse-conversion-value":"high","country-code":"US","relay":1"#))
        guard case .valid(let verified) = verdict, case .adAttributionKit(let detail) = verified.detail else {
            Issue.record("refused: \(verdict.reason ?? "")"); return
        }
        #expect(verified.fields.conversionType == .reengagement)
        #expect(verified.fields.coarseValue == .high && verified.fields.countryCode == "US")
        #expect(verified.fields.extras.map(\.key) == ["relay"])
        #expect(detail.postback.payloadExtras.map(\.key) == ["future-field"])
    }

    @Test("Apple's production ring refuses a test key's postback; an unknown kid is named")
    func keys() throws {
        let production = AttributionVerifier()
        let forged = try Self.signed(kid: KeyRing.AppleKey.aakProductionKid)
        let refusal = try #require(Self.refusal(production.verify(Self.body(jws: forged))))
        #expect(refusal.status == .invalidSignature && refusal.reason.contains("does not match"))
        #expect(refusal.dedupID == "0d3a0b4e-3f52-4a0a-9c39-1c0e6a3c2b1f" && refusal.network == "example.adattributionkit")

        let unknown = try #require(Self.refusal(production.verify(Self.body(jws: try Self.signed()))))
        #expect(unknown.status == .invalidSignature)
        #expect(unknown.reason.contains(#"kid "simulated-apple-aak/0" is not a trusted"#))
        #expect(unknown.reason.contains(#""apple-cas-identifier/0""#))
        // The development keys are not trusted unless asked for.
        #expect(!unknown.reason.contains("apple-development-identifier"))
    }

    @Test("alg none, HS256 keyed with the public key's bytes, and other algorithms are refused before any key")
    func algorithmConfusion() throws {
        let signingInput = { (header: String) in
            Base64URL.encode(header.utf8) + "." + Base64URL.encode(Self.payload.utf8)
        }
        let publicKey = Self.key.publicKey
        var attempts: [String] = [
            signingInput(#"{"alg":"none","kid":"simulated-apple-aak/0"}"#) + ".",
            signingInput(#"{"alg":"none","kid":"simulated-apple-aak/0"}"#) + "." + Base64URL.encode([0]),
            signingInput(#"{"alg":"ES384","kid":"simulated-apple-aak/0"}"#) + "." + Base64URL.encode([UInt8](repeating: 1, count: 96)),
            signingInput(#"{"alg":"es256","kid":"simulated-apple-aak/0"}"#) + "." + Base64URL.encode([UInt8](repeating: 1, count: 64)),
            signingInput(#"{"kid":"simulated-apple-aak/0"}"#) + "." + Base64URL.encode([UInt8](repeating: 1, count: 64)),
        ]
        // HS256 with the public key as the HMAC secret: the classic confusion, in DER and in PEM.
        for secret in [publicKey.spkiDER, Array(publicKey.pemRepresentation.utf8)] {
            let input = signingInput(#"{"alg":"HS256","kid":"simulated-apple-aak/0"}"#)
            let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: secret))
            attempts.append(input + "." + Base64URL.encode(Array(mac)))
        }
        for jws in attempts {
            let refusal = try #require(Self.refusal(Self.verifier.verify(Self.body(jws: jws))), "\(jws) verified")
            #expect(refusal.reason.contains("alg") || refusal.reason.contains("signature segment is empty"), "\(refusal.reason)")
        }
    }

    @Test("a header naming its own key (jwk) is judged by the kid's key, never the one it brings")
    func embeddedKey() throws {
        let rogue = try ECPrivateKey.generate(curve: .p256)
        let header = #"{"alg":"ES256","kid":"simulated-apple-aak/0","jwk":{"kty":"EC"}}"#
        let input = Base64URL.encode(header.utf8) + "." + Base64URL.encode(Self.payload.utf8)
        let jws = input + "." + Base64URL.encode(try rogue.es256Signature(for: Array(input.utf8)))
        let refusal = try #require(Self.refusal(Self.verifier.verify(Self.body(jws: jws))))
        #expect(refusal.status == .invalidSignature)
    }

    @Test("signature shapes: DER, truncated, padded, two segments, four segments are refused with a named reason")
    func shapes() throws {
        let jws = try Self.signed()
        let parts = jws.split(separator: ".").map(String.init)
        let raw = try #require(Base64URL.decode(Substring(parts[2])))
        var der: [UInt8] = [0x30, 0x44, 0x02, 0x20] + raw[0..<32] + [0x02, 0x20] + raw[32..<64]
        if raw[0] >= 0x80 || raw[32] >= 0x80 { der = [] }  // not minimal DER then; the other cases still run
        let cases: [(String, String)] = [
            (parts[0] + "." + parts[1] + "." + Base64URL.encode(raw.dropLast()), "64 bytes, got 63"),
            (parts[0] + "." + parts[1] + "." + Base64URL.encode(raw + [0]), "64 bytes, got 65"),
            (parts[0] + "." + parts[1] + "." + parts[2] + "==", "signature segment is not unpadded base64url"),
            (parts[0] + "=." + parts[1] + "." + parts[2], "header segment is not unpadded base64url"),
            (parts[0] + "." + parts[1], "three base64url segments separated by dots, got 2"),
            (jws + "." + parts[2], "got 4"),
            (parts[0] + "." + parts[1] + "/" + "." + parts[2], "payload segment is not unpadded base64url"),
        ] + (der.isEmpty ? [] : [(parts[0] + "." + parts[1] + "." + Base64URL.encode(der), "raw r ‖ s")])
        for (text, reason) in cases {
            let refusal = try #require(Self.refusal(Self.verifier.verify(Self.body(jws: text))), "\(text) verified")
            #expect(refusal.reason.contains(reason), "\(refusal.reason)")
        }
    }

    @Test("every changed character of the payload or the header is refused")
    func tamper() throws {
        let jws = try Self.signed()
        let dots = jws.indices.filter { jws[$0] == "." }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var tried = 0
        for index in jws.indices where index < dots[1] && jws[index] != "." {
            var changed = jws
            let current = jws[index]
            let replacement = alphabet[(alphabet.firstIndex(of: current)! + 17) % alphabet.count]
            changed.replaceSubrange(index...index, with: String(replacement))
            #expect(!Self.verifier.verify(Self.body(jws: changed)).isValid, "changed character at \(jws.distance(from: jws.startIndex, to: index))")
            tried += 1
        }
        #expect(tried > 300)
        // A header re-serialised (same meaning, other bytes) no longer matches: the received bytes are signed.
        let parts = jws.split(separator: ".").map(String.init)
        let reserialised = Base64URL.encode(#"{"alg":"ES256","kid":"simulated-apple-aak\/0"}"#.utf8)
        #expect(!Self.verifier.verify(Self.body(jws: reserialised + "." + parts[1] + "." + parts[2])).isValid)
    }

    @Test("payload fields are typed and checked, naming the field")
    func payloadRules() throws {
        let cases: [(String, String, String)] = [
            (#""conversion-type":"download""#, #""conversion-type":"reengagement""#, "conversion-type"),
            (#""postback-sequence-index":0"#, #""postback-sequence-index":3"#, "postback-sequence-index"),
            (#""source-identifier":"5239""#, #""source-identifier":"52391""#, "source-identifier"),
            (#""source-identifier":"5239""#, #""source-identifier":5239"#, "source-identifier"),
            (#""did-win":true"#, #""did-win":"true""#, "did-win"),
            (#","postback-identifier":"0d3a0b4e-3f52-4a0a-9c39-1c0e6a3c2b1f""#, "", "postback-identifier"),
            (#""did-win":true"#, #""did-win":true,"did-win":false"#, "jws-string"),
        ]
        for (from, to, field) in cases {
            let payload = Self.payload.replacingOccurrences(of: from, with: to)
            let refusal = try #require(Self.refusal(Self.verifier.verify(Self.body(jws: try Self.signed(payload)))), "\(to)")
            #expect(refusal.status == .malformed && refusal.field == field, "\(to): \(refusal.field ?? "-") \(refusal.reason)")
        }
        let both = try #require(Self.refusal(Self.verifier.verify(Self.body(
            jws: try Self.signed(), outer: #","conversion-value":20,"coarse-conversion-value":"low""#))))
        #expect(both.field == "coarse-conversion-value")
        let fine = try #require(Self.refusal(Self.verifier.verify(Self.body(jws: try Self.signed(), outer: #","conversion-value":64"#))))
        #expect(fine.field == "conversion-value")
        let interaction = try #require(Self.refusal(Self.verifier.verify(Self.body(jws: try Self.signed(), outer: #","ad-interaction-type":"tap""#))))
        #expect(interaction.field == "ad-interaction-type")
    }

    @Test("Apple's documentation postback does not verify under any of Apple's keys")
    func documentationVector() throws {
        let url = Fixtures.vectors.appendingPathComponent("negative/negative-aak-postback-cas0-apple-doc.json")
        let vector = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        let postback = try #require(vector["postback"] ?? vector["body"] ?? vector["json"], "\(vector.keys)")
        let bytes = try JSONSerialization.data(withJSONObject: postback)
        var ring = KeyRing.apple
        for key in KeyRing.appleAdAttributionKitDevelopment { ring.add(key) }
        let verdict = AttributionVerifier(keyRing: ring).verify(Array(bytes))
        #expect(verdict.framework == .adAttributionKit)
        #expect(!verdict.isValid)
    }

    @Test("base64url is strict: one spelling per byte string")
    func base64url() {
        #expect(Base64URL.decode("AQID") == [1, 2, 3])
        #expect(Base64URL.decode("AQI") == [1, 2])
        #expect(Base64URL.decode("AQ") == [1])
        #expect(Base64URL.decode("AR") == nil)  // non-zero left-over bits
        #expect(Base64URL.decode("A") == nil)
        #expect(Base64URL.decode("AQ==") == nil)
        #expect(Base64URL.decode("+/8") == nil)
        #expect(Base64URL.decode("A Q") == nil)
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Substring(Base64URL.encode(bytes))) == bytes)
        }
    }
}


/// The writer of AdAttributionKit postbacks (the simulator's) against the verifier that reads them.
@Suite("AdAttributionKit postback writer")
struct AAKPostbackWriterTests {
    @Test("a written and signed postback verifies, every field read back as written", arguments: [false, true])
    func roundTrip(topTier: Bool) throws {
        let postback = AAKPostback(
            kid: AAKVerifierTests.kid, adNetworkIdentifier: "example.adattributionkit",
            postbackIdentifier: "9a5a3ae0-5f14-4d49-8bd0-3f6c5d0c2a11", advertisedItemIdentifier: 525463029,
            conversionType: .reengagement, didWin: true, postbackSequenceIndex: 1, sourceIdentifier: "39",
            publisherItemIdentifier: topTier ? 1111111111 : nil, marketplaceIdentifier: topTier ? "com.apple.AppStore" : nil,
            conversionValue: topTier ? 12 : nil, coarseConversionValue: topTier ? nil : .medium,
            adInteractionType: .click, countryCode: topTier ? "US" : nil)
        let input = postback.signingInput
        let body = postback.body(signingInput: input, signature: try AAKVerifierTests.key.es256Signature(for: input))
        guard case .valid(let verified) = AAKVerifierTests.verifier.verify(Array(body.utf8)),
              case .adAttributionKit(let detail) = verified.detail else {
            Issue.record("did not verify: \(body)")
            return
        }
        var expected = postback
        expected.jwsString = detail.postback.jwsString
        #expect(detail.postback == expected)
        #expect(String(decoding: input, as: UTF8.self) == detail.postback.jwsString.split(separator: ".").prefix(2).joined(separator: "."))
    }
}
