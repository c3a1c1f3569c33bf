import Foundation
import SKANCore

/// The signed impressions one placement serves, each already judged by the device rules.
///
/// Why a pool: a network signs an impression per ad request and a device checks its signature; doing both for
/// every impression of a million devices would cost more than the postbacks the run is about. The pool holds a
/// few distinct impressions per placement, plus one broken impression per kind of fault; devices draw from it,
/// and the verdict of `ImpressionVerifier` (deterministic for given bytes) is computed once per impression.
struct ImpressionPool: Sendable {
    /// Why a device refused an impression.
    enum Refusal: Int, Sendable, CaseIterable {
        case badSignature, badFields
    }

    /// A signed impression in its framework's form.
    enum Token: Sendable {
        case skadnetwork(SignedImpression)
        /// The compact JWS.
        case adAttributionKit(String)
    }

    /// One pooled impression and how a device judges it.
    struct Entry: Sendable {
        let token: Token
        /// `nil` when the device accepts it.
        let refusal: Refusal?
        /// The fault the network made, for tests and docs.
        let fault: String?
    }

    let valid: [Entry]
    let faulty: [Entry]

    init(valid: [Entry], faulty: [Entry]) {
        self.valid = valid
        self.faulty = faulty
    }

    init(ad: Ad, adIndex: Int, campaign: Campaign, networkID: String, key: ECPrivateKey,
         verifier: ImpressionVerifier, random: inout SeededRandom) throws(SimulatorError) {
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
            switch verifier.verify(signed) {
            case .valid: Entry(token: .skadnetwork(signed), refusal: nil, fault: fault)
            case .invalidSignature: Entry(token: .skadnetwork(signed), refusal: .badSignature, fault: fault)
            case .invalidFields: Entry(token: .skadnetwork(signed), refusal: .badFields, fault: fault)
            }
        }
        var valid: [Entry] = []
        for _ in 0..<campaign.settings.impressionPoolSize {
            let good = impression()
            let entry = judge(try signed(good, over: good.signedString.bytes), fault: nil)
            guard entry.refusal == nil else {
                throw SimulatorError(.invalidKey, "$.ads[\(adIndex)]: the network \(networkID)'s public key does not accept impressions signed with its private key")
            }
            valid.append(entry)
        }
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
