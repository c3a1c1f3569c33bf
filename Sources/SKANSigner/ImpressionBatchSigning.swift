import Foundation
import SKANCore

extension Signer {
    /// Signs a body's impressions, or refuses the whole body naming the request and the field.
    static func sign(_ body: [UInt8], keys: SignerKeys, now: () -> Date, makeNonce: () -> UUID) -> ImpressionReply {
        do throws(ImpressionBatch.Refusal) {
            let batch = try ImpressionBatch(body, now: now, makeNonce: makeNonce)
            // Every key is found before anything is signed: nothing comes back half-signed.
            var signers: [ECPrivateKey] = []
            for (index, item) in batch.items.enumerated() {
                guard let key = keys.key(for: item.network) else {
                    throw ImpressionBatch.Refusal(index: batch.isSingle ? nil : index,
                                                  reason: "ad-network-id \(JSONWriter.quoted(Excerpt.of(item.network, maximumBytes: 80))) has no key in this signer")
                }
                signers.append(key)
            }
            var outputs: [String] = []
            for (index, (item, key)) in zip(batch.items, signers).enumerated() {
                do throws(SKANError) {
                    switch item {
                    case .skadnetwork(let impression, let format):
                        outputs.append(try ImpressionSigner(key: key).sign(impression).json(format))
                    case .adAttributionKit(let impression):
                        var writer = JSONWriter()
                        writer.string("jws", try impression.signed(with: key))
                        outputs.append(writer.json)
                    }
                } catch {
                    // Checked above; what remains is a key that cannot sign (a P-192 key for ES256).
                    throw ImpressionBatch.Refusal(index: batch.isSingle ? nil : index, reason: error.reason)
                }
            }
            return ImpressionReply(status: .ok, body: batch.isSingle ? outputs[0] : "[" + outputs.joined(separator: ",") + "]",
                                   count: outputs.count)
        } catch {
            return ImpressionReply(status: .badRequest, body: error.json, count: 0)
        }
    }
}
