import Foundation
import SKANCore

extension Signer {
    /// Signs a body's impressions through the core's one batch rule (``ImpressionBatch``: every one checked and every
    /// key found before any is signed), or refuses the whole body naming the request and the field.
    static func sign(_ body: [UInt8], keys: SignerKeys, now: () -> Date, makeNonce: () -> UUID) -> ImpressionReply {
        do throws(ImpressionBody.Refusal) {
            let request = try ImpressionBody(body)
            let outputs = try request.sign(keys: keys, now: now, makeNonce: makeNonce).map(\.json)
            return ImpressionReply(status: .ok, body: request.isSingle ? outputs[0] : "[" + outputs.joined(separator: ",") + "]",
                                   count: outputs.count)
        } catch {
            return ImpressionReply(status: .badRequest, body: error.json, count: 0)
        }
    }
}
