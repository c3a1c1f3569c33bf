/// The one entry point that judges a postback of either framework: it reads the body once, recognises the
/// framework (``Framework/recognise(_:)``) and hands the members to that framework's verifier.
///
/// Thread-safe and cheap to copy: one verifier serves every thread.
public struct AttributionVerifier: Sendable {
    /// The trusted keys, by curve (SKAdNetwork) and by key id (AdAttributionKit).
    public let keyRing: KeyRing
    private let skadnetwork: PostbackVerifier
    private let adAttributionKit: AAKVerifier

    /// A verifier trusting `keyRing`, Apple's keys by default.
    public init(keyRing: KeyRing = .apple) {
        self.keyRing = keyRing
        skadnetwork = PostbackVerifier(keyRing: keyRing)
        adAttributionKit = AAKVerifier(keyRing: keyRing)
    }

    /// Judges a postback from the bytes received.
    public func verify(_ bytes: [UInt8]) -> AttributionVerdict {
        switch JSONObjectReader.members(of: bytes, knownKeys: PostbackField.keyTable) {
        case .failure(let error): Self.notAnObject(error)
        case .success(let members): verify(members: members)
        }
    }

    /// Judges one JSON record that is either a postback or an envelope around one (an object with a `postback`
    /// member beside metadata, as `skan simulate` writes); the inner postback's bytes are judged as they are.
    public func verify(record bytes: [UInt8]) -> AttributionVerdict {
        switch JSONObjectReader.members(of: bytes, knownKeys: PostbackField.keyTable) {
        case .failure(let error):
            return Self.notAnObject(error)
        case .success(let members):
            if let inner = PostbackEnvelope.innerPostback(members) { return verify(Array(inner.utf8)) }
            return verify(members: members)
        }
    }

    private func verify(members: [JSONMember]) -> AttributionVerdict {
        switch Framework.recognise(members) {
        case .skadnetwork:
            return AttributionVerdict(skadnetwork.verify(members: members))
        case .adAttributionKit:
            return adAttributionKit.verify(members)
        }
    }

    private static func notAnObject(_ error: JSONObjectReader.SyntaxError) -> AttributionVerdict {
        .malformed("the body is not a JSON object: \(error)")
    }
}
