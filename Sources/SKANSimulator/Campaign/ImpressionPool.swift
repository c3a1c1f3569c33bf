import Foundation
import SKANCore

/// The signed impressions one placement serves, each already judged by the device rules.
///
/// Why a pool: a network signs an impression per ad request and a device checks its signature; doing both for
/// every impression of a million devices would cost more than the postbacks the run is about. The pool holds a
/// few distinct impressions per placement, plus one broken impression per kind of fault; devices draw from it,
/// and the core's verdict (`SignedAttributionImpression.verify`, deterministic for given bytes) is computed once per impression.
struct ImpressionPool: Sendable {
    /// Why a device refused an impression.
    enum Refusal: Int, Sendable, CaseIterable {
        case badSignature, badFields
    }

    /// One pooled impression and how a device judges it.
    struct Entry: Sendable {
        let token: SignedAttributionImpression
        /// `nil` when the device accepts it.
        let refusal: Refusal?
        /// The fault the network made, for tests and docs.
        let fault: String?

        /// The impression as the core's verifier judges it with the network's public key, as a device does.
        init(judging token: SignedAttributionImpression, with publicKey: ECPublicKey, fault: String?) {
            self.token = token
            switch token.verify(publicKey: publicKey) {
            case .success: refusal = nil
            case .failure(let refused): refusal = refused.kind == .invalidFields ? .badFields : .badSignature
            }
            self.fault = fault
        }
    }

    /// The pool's valid impressions: signed by the core's batch rule with the network's key, then judged; an error
    /// names the ad when the key cannot sign them or its public key refuses them.
    static func valid(_ impressions: [AttributionImpression], adIndex: Int, networkID: String, key: ECPrivateKey,
                      publicKey: ECPublicKey) throws(SimulatorError) -> [Entry] {
        let signed: [SignedAttributionImpression]
        switch ImpressionBatch.sign(impressions, keys: { _ in key }) {
        case .success(let tokens): signed = tokens
        case .failure(let refusal): throw SimulatorError(.invalidKey, "$.ads[\(adIndex)]: cannot sign an impression: \(refusal.reason)")
        }
        let entries = signed.map { Entry(judging: $0, with: publicKey, fault: nil) }
        guard entries.allSatisfy({ $0.refusal == nil }) else {
            throw SimulatorError(.invalidKey, "$.ads[\(adIndex)]: the network \(networkID)'s public key does not accept impressions signed with its private key")
        }
        return entries
    }

    let valid: [Entry]
    let faulty: [Entry]

    init(valid: [Entry], faulty: [Entry]) {
        self.valid = valid
        self.faulty = faulty
    }

    init(ad: Ad, adIndex: Int, campaign: Campaign, networkID: String, key: ECPrivateKey,
         publicKey: ECPublicKey, random: inout SeededRandom) throws(SimulatorError) {
        let version = campaign.version
        func impression(version: ImpressionVersion = version, kind: AdKind = ad.kind) -> Impression {
            Impression(
                version: version, kind: kind, adNetworkID: networkID,
                campaignID: version.usesSourceIdentifier ? nil : ad.campaignID,
                sourceIdentifier: version.usesSourceIdentifier ? ad.sourceIdentifier : nil,
                itunesItemID: campaign.advertisedApp.appID, nonce: random.uuid(),
                sourceAppID: kind == .web || !version.hasVersionAndSource ? nil : ad.sourceAppID,
                sourceDomain: kind == .web ? ad.sourceDomain : nil,
                timestamp: campaign.start - SimulatedTime.hour)
        }
        func signed(_ impression: Impression, over bytes: [UInt8]) throws(SimulatorError) -> SignedImpression {
            do {
                return SignedImpression(impression: impression, signature: Data(try key.signature(for: bytes)).base64EncodedString())
            } catch {
                throw SimulatorError(.invalidKey, "$.ads[\(adIndex)]: cannot sign an impression: \(error.reason)")
            }
        }
        func judge(_ signed: SignedImpression, fault: String?) -> Entry {
            Entry(judging: .skadnetwork(signed, format: nil), with: publicKey, fault: fault)
        }
        let valid = try Self.valid((0..<campaign.settings.impressionPoolSize).map { _ in .skadnetwork(impression(), format: nil) },
                                   adIndex: adIndex, networkID: networkID, key: key, publicKey: publicKey)
        var faulty: [Entry] = []
        // A signature over other bytes than the impression's.
        let tampered = impression()
        faulty.append(judge(try signed(tampered, over: impression().signedString.bytes), fault: "bad signature"))
        // The right values in the wrong order (two neighbouring fields swapped).
        let reordered = impression()
        var values = reordered.signedString.description.components(separatedBy: "␣")
        values.swapAt(values.count - 3, values.count - 4)
        faulty.append(judge(try signed(reordered, over: SignedString(values).bytes), fault: "wrong field order"))
        // Signed over the uppercase nonce, which devices never build.
        let uppercase = impression()
        let upperValues = uppercase.signedString.description.components(separatedBy: "␣")
            .map { $0 == uppercase.nonceText ? $0.uppercased() : $0 }
        faulty.append(judge(try signed(uppercase, over: SignedString(upperValues).bytes), fault: "uppercase nonce"))
        // An id out of range, validly signed.
        var outOfRange = impression()
        if version.usesSourceIdentifier { outOfRange.sourceIdentifier = 12_345 } else { outOfRange.campaignID = 101 }
        faulty.append(judge(try signed(outOfRange, over: outOfRange.signedString.bytes), fault: "id out of range"))
        // View-through signed with a version before 2.2.
        let early = impression(version: .v2_1, kind: .viewThrough)
        var earlyFixed = early
        earlyFixed.campaignID = earlyFixed.campaignID ?? 1
        earlyFixed.sourceIdentifier = nil
        earlyFixed.sourceAppID = earlyFixed.sourceAppID ?? 0
        earlyFixed.sourceDomain = nil
        faulty.append(judge(try signed(earlyFixed, over: earlyFixed.signedString.bytes), fault: "view-through below 2.2"))
        self.valid = valid
        self.faulty = faulty
    }
}
