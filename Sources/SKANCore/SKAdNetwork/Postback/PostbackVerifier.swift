import Crypto
import Foundation

/// Says whether Apple (or another trusted key) signed a postback.
///
/// Thread-safe and cheap to copy: one verifier serves every thread. The key comes from the version
/// (P-192 for 1.0 and 2.0, P-256 from 2.1), never from the postback.
public struct PostbackVerifier: Sendable {
    /// The trusted keys.
    public let keyRing: KeyRing

    /// A verifier trusting `keyRing`, Apple's keys by default.
    public init(keyRing: KeyRing = .apple) {
        self.keyRing = keyRing
    }

    /// Judges a postback from the bytes received.
    public func verify(_ bytes: some Collection<UInt8>) -> PostbackVerdict {
        verify(Array(bytes))
    }

    /// Judges a postback from the bytes received. The concrete overload that callers with an array reach
    /// directly: a generic call across modules would cast and look up type metadata for every postback.
    public func verify(_ bytes: [UInt8]) -> PostbackVerdict {
        switch Postback.parse(bytes) {
        case .success(let postback): verify(postback)
        case .failure(.malformed(let malformed)): .malformed(malformed)
        case .failure(.unsupportedVersion(let version, let transactionID)): .unsupportedVersion(version, transactionID: transactionID)
        }
    }

    /// Judges one JSON record that is either a postback or an envelope around one: an object with a
    /// `postback` member holding the postback as sent, beside metadata such as the simulator's send time
    /// (`skan simulate` writes these) or a test vector's notes. The inner postback's bytes are judged as they are.
    public func verify(record bytes: some Collection<UInt8>) -> PostbackVerdict {
        verify(record: Array(bytes))
    }

    /// Judges one JSON record (a postback or an envelope around one) from an array, without generic dispatch.
    public func verify(record bytes: [UInt8]) -> PostbackVerdict {
        switch JSONObjectReader.members(of: bytes, knownKeys: PostbackField.keyTable) {
        case .failure(let error):
            return .malformed(MalformedPostback(field: nil, reason: "the body is not a JSON object: \(error)"))
        case .success(let members):
            if let inner = PostbackEnvelope.innerPostback(members) {
                return verify(Array(inner.utf8))
            }
            return verify(members: members)
        }
    }

    /// Judges a postback from members already read (``AttributionVerifier`` reads them once for both frameworks).
    func verify(members: [JSONMember]) -> PostbackVerdict {
        switch Postback.parse(members: members) {
        case .success(let postback): verify(postback)
        case .failure(.malformed(let malformed)): .malformed(malformed)
        case .failure(.unsupportedVersion(let version, let transactionID)):
            .unsupportedVersion(version, transactionID: transactionID)
        }
    }

    /// Judges an already-parsed postback.
    public func verify(_ postback: Postback) -> PostbackVerdict {
        let curve = postback.version.curve
        let keys = keyRing.keys(on: curve)
        guard !keys.isEmpty else {
            return .invalidSignature(postback, reason: "no trusted \(curve) key for version \(postback.version)")
        }
        guard let signature = Data(base64Encoded: postback.attributionSignature) else {
            return .invalidSignature(postback, reason: "attribution-signature is not Base64")
        }
        for layout in postback.version.layoutsToTry {
            let signed = postback.signedFields(layout)
            let digest = SHA256.hash(data: postback.signedString(fields: signed).bytes)
            for trusted in keys where trusted.key.isValidSignature(signature, digest: digest) {
                return .valid(VerifiedPostback(
                    postback: postback, keyName: trusted.name, layout: layout,
                    signedFields: signed, claimedFields: claimedFields(of: postback, signed: signed)))
            }
        }
        let names = keys.map(\.name).joined(separator: ", ")
        return .invalidSignature(postback, reason: "the signature does not match the \(postback.version) fields under \(names)")
    }

    private func claimedFields(of postback: Postback, signed: [PostbackField]) -> [PostbackField] {
        PostbackField.allCases.filter { field in
            field != .attributionSignature && postback.has(field) && !signed.contains(field)
        }
    }
}
