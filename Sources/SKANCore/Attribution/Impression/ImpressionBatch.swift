import Foundation

/// The rule every front end signs by (`skan sign`, the signing service, the simulator's networks): every
/// impression of a batch is checked and every key found before any is signed, so a bad one signs none and nothing
/// comes back half-signed.
public enum ImpressionBatch {
    /// Why a batch was refused: the position of the first request at fault and a reason naming its field.
    public struct Refusal: Error, Sendable, Hashable {
        /// The request's position in the batch, from 0.
        public let index: Int
        /// Why, naming the field, the value and what was expected.
        public let reason: String

        /// A refusal of the request at `index`.
        public init(index: Int, reason: String) {
            self.index = index
            self.reason = reason
        }
    }

    /// Reads every request (field names after `origin`; `now` and `makeNonce` give the defaults of `timestamp` and
    /// `nonce`, in request order), then signs them as ``sign(_:keys:)`` does.
    public static func sign(_ requests: [ImpressionRequest], origin: String = "",
                            keys: (String) -> ECPrivateKey?, now: () -> Date = Date.init,
                            makeNonce: () -> UUID = UUID.random) -> Result<[SignedAttributionImpression], Refusal> {
        var impressions: [AttributionImpression] = []
        impressions.reserveCapacity(requests.count)
        for (index, request) in requests.enumerated() {
            do throws(SKANError) {
                impressions.append(try request.attributionImpression(origin: origin, now: now, makeNonce: makeNonce))
            } catch {
                return .failure(Refusal(index: index, reason: error.reason))
            }
        }
        return sign(impressions, keys: keys)
    }

    /// Checks every impression's fields, finds every network's key (`keys` gives `nil` for a network it has no
    /// key for), and only then signs them all, in order.
    public static func sign(_ impressions: [AttributionImpression],
                            keys: (String) -> ECPrivateKey?) -> Result<[SignedAttributionImpression], Refusal> {
        for (index, impression) in impressions.enumerated() {
            do throws(SKANError) {
                try impression.validate()
            } catch {
                return .failure(Refusal(index: index, reason: error.reason))
            }
        }
        var signers: [ECPrivateKey] = []
        signers.reserveCapacity(impressions.count)
        for (index, impression) in impressions.enumerated() {
            guard let key = keys(impression.network) else {
                return .failure(Refusal(index: index, reason: "ad-network-id \(JSONWriter.quoted(Excerpt.of(impression.network, maximumBytes: 80))) has no key in this signer"))
            }
            signers.append(key)
        }
        var signed: [SignedAttributionImpression] = []
        signed.reserveCapacity(impressions.count)
        for (index, (impression, key)) in zip(impressions, signers).enumerated() {
            do throws(SKANError) {
                signed.append(try impression.signed(validatedWith: key))
            } catch {
                // Checked above; what remains is a key that cannot sign (a P-192 key for ES256).
                return .failure(Refusal(index: index, reason: error.reason))
            }
        }
        return .success(signed)
    }
}
