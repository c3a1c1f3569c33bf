import Foundation
import SKANCore

extension ImpressionPool {
    /// The pool of an AdAttributionKit placement (spec §8.1): compact JWS impressions signed ES256 under the
    /// network's id as the `kid`, judged once by the core's verifier as a device judges them, plus one broken
    /// impression per mistake networks make.
    init(adAttributionKitAd ad: Ad, adIndex: Int, campaign: Campaign, networkID: String, key: ECPrivateKey,
         publicKey: ECPublicKey, random: inout SeededRandom) throws(SimulatorError) {
        guard key.curve == .p256 else {
            throw SimulatorError(.invalidKey, "$.ads[\(adIndex)]: AdAttributionKit impressions are ES256, and the network \(networkID)'s key is \(key.curve); expected a P-256 key")
        }
        func impression() -> AAKImpression {
            AAKImpression(impressionIdentifier: random.uuid().uuidString, publisherItemIdentifier: ad.sourceAppID ?? 0,
                          adNetworkIdentifier: networkID, sourceIdentifier: ad.sourceIdentifier ?? 0,
                          timestamp: campaign.start - SimulatedTime.hour,
                          advertisedItemIdentifier: campaign.advertisedApp.appID,
                          eligibleForReengagement: ad.eligibleForReengagement ? true : nil)
        }
        func jws(payload: String, signedPayload: String? = nil, kid: String = networkID, der: Bool = false) throws(SimulatorError) -> String {
            let signingInput = { (payload: String) in
                String(decoding: CompactJWS.es256HeaderSegment(kid: kid), as: UTF8.self) + "." + Base64URL.encode(payload.utf8)
            }
            do {
                let signature = der ? try key.signature(for: Array(signingInput(signedPayload ?? payload).utf8))
                    : try key.es256Signature(for: Array(signingInput(signedPayload ?? payload).utf8))
                return signingInput(payload) + "." + Base64URL.encode(signature)
            } catch {
                throw SimulatorError(.invalidKey, "$.ads[\(adIndex)]: cannot sign an impression: \(error.reason)")
            }
        }
        func judge(_ token: String, fault: String?) -> Entry {
            Entry(judging: .adAttributionKit(jws: token), with: publicKey, fault: fault)
        }
        let valid = try Self.valid((0..<campaign.settings.impressionPoolSize).map { _ in .adAttributionKit(impression()) },
                                   adIndex: adIndex, networkID: networkID, key: key, publicKey: publicKey)
        var outOfRange = impression()
        outOfRange.sourceIdentifier = 12_345
        let faulty = [
            // A signature over another impression's payload.
            judge(try jws(payload: impression().payloadJSON, signedPayload: impression().payloadJSON), fault: "bad signature"),
            // The DER signature ECDSA libraries return by default, where JWS wants raw r ‖ s.
            judge(try jws(payload: impression().payloadJSON, der: true), fault: "DER signature"),
            // Signed under another kid than the network's id.
            judge(try jws(payload: impression().payloadJSON, kid: "other.adattributionkit"), fault: "kid not the network"),
            // A source identifier of five digits, validly signed.
            judge(try jws(payload: outOfRange.payloadJSON), fault: "source-identifier out of range"),
        ]
        self.init(valid: valid, faulty: faulty)
    }
}
