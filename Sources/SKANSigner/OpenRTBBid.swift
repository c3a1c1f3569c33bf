import Foundation
import SKANCore

/// `POST /v1/openrtb/skadn`: the bid's `ext.skadn` for a bid request's `imp.ext.skadn` (spec §7.1). The body is
/// `{"imp-ext-skadn": {…}, "itunes-item-id": N, "campaign-id": N | "source-identifier": N}`.
enum OpenRTBBid {
    /// The reply: 200 with `ext.skadn`, 204 when this signer holds no key for any listed network, 400 naming the
    /// member at fault.
    static func answer(_ body: [UInt8], keys: SignerKeys, now: () -> Date, makeNonce: () -> UUID)
        -> (status: Int, body: String) {
        do throws(SKANError) {
            let members: [JSONMember]
            switch JSONObjectReader.members(of: body) {
            case .success(let read): members = read
            case .failure(let error): throw SKANError(.invalidImpression, "the body is not a JSON object: \(error)")
            }
            func value(_ key: String) -> JSONValue? { members.first { $0.key == key }?.value }
            guard case .object(let ext)? = value("imp-ext-skadn") else {
                throw SKANError(.invalidImpression, "imp-ext-skadn must be the bid request's imp.ext.skadn object")
            }
            func integer(_ key: String) throws(SKANError) -> Int? {
                switch value(key) {
                case nil, .null?: return nil
                case .number(let text)? where Int(text) != nil: return Int(text)
                case .string(let text)? where Int(text) != nil: return Int(text)
                case let other?: throw SKANError(.invalidImpression, "\(key) must be an integer, got \(other.described)")
                }
            }
            let request = try SKAdNBidRequest(json: Array(ext.utf8), origin: "imp-ext-skadn.")
            guard let itunesItemID = try integer("itunes-item-id") else {
                throw SKANError(.invalidImpression, "itunes-item-id is required")
            }
            let campaign = try integer("campaign-id"), sourceIdentifier = try integer("source-identifier")
            guard campaign != nil || sourceIdentifier != nil else {
                throw SKANError(.invalidImpression, "campaign-id (versions up to 3.0) or source-identifier (4.0) is required")
            }
            guard let network = request.network(among: keys.networks), let key = keys.key(for: network) else {
                return (204, "")
            }
            guard let version = request.version(hasSourceIdentifier: sourceIdentifier != nil, hasCampaign: campaign != nil) else {
                throw SKANError(.invalidImpression, "imp-ext-skadn.versions \(request.versions) has no version this bid can be "
                                + "signed for (a source-identifier needs 4.0, a campaign-id 2.0–3.0)")
            }
            let sourceApp = request.sourceApp.flatMap(Int.init) ?? 0
            let signer = ImpressionSigner(key: key)
            // 2.2 and later sign the fidelity: one entry per fidelity, each with a fresh nonce; before, one at the root.
            let fidelities = version.signsFidelity ? [0, 1] : [1]
            var entries: [(fidelity: Int, signed: SignedImpression)] = []
            for fidelity in fidelities {
                let impression = Impression(
                    version: version, kind: fidelity == 0 ? .viewThrough : .storeKitRendered, adNetworkID: network,
                    campaignID: version.usesSourceIdentifier ? nil : campaign,
                    sourceIdentifier: version.usesSourceIdentifier ? sourceIdentifier : nil, itunesItemID: itunesItemID,
                    nonce: makeNonce(), sourceAppID: sourceApp, timestamp: Int64(now().timeIntervalSince1970 * 1000))
                try impression.validate()
                entries.append((fidelity, try signer.sign(impression)))
            }
            // Every value is a JSON string except `fidelity` (the extension's rule).
            var writer = JSONWriter()
            writer.string("version", version.rawValue)
            writer.string("network", network)
            if version.usesSourceIdentifier {
                writer.string("sourceidentifier", String(sourceIdentifier ?? 0))
            } else {
                writer.string("campaign", String(campaign ?? 0))
            }
            writer.string("itunesitem", String(itunesItemID))
            writer.string("sourceapp", String(sourceApp))
            if version.signsFidelity {
                let list = entries.map { entry in
                    var item = JSONWriter()
                    item.integer("fidelity", entry.fidelity)
                    item.string("nonce", entry.signed.impression.nonceText)
                    item.string("timestamp", String(entry.signed.impression.timestamp))
                    item.string("signature", entry.signed.signature)
                    return item.json
                }
                writer.raw("fidelities", "[" + list.joined(separator: ",") + "]")
            } else if let entry = entries.first {
                writer.string("nonce", entry.signed.impression.nonceText)
                writer.string("timestamp", String(entry.signed.impression.timestamp))
                writer.string("signature", entry.signed.signature)
            }
            return (200, writer.json)
        } catch {
            var writer = JSONWriter()
            writer.string("status", "bad-request")
            writer.string("reason", error.reason)
            return (400, writer.json)
        }
    }
}
