import Foundation

/// A signed impression of either framework as a device receives it: the JSON `skan sign` prints and a signing
/// service answers, and what `skan verify-impression` reads back, recognised once (``parse(_:)``).
public enum SignedAttributionImpression: Sendable, Hashable {
    /// An SKAdNetwork impression with its DER signature, and the shape it is written in (`nil`: its ad kind's).
    case skadnetwork(SignedImpression, format: ImpressionFormat?)
    /// An AdAttributionKit impression: the compact JWS the app passes to `AppImpression(compactJWS:)`.
    case adAttributionKit(jws: String)

    /// The framework that signed it.
    public var framework: Framework {
        switch self {
        case .skadnetwork: .skadnetwork
        case .adAttributionKit: .adAttributionKit
        }
    }

    /// The impression as one JSON object: an SKAdNetwork shape, or `{"jws": …}`.
    public var json: String {
        switch self {
        case .skadnetwork(let signed, let format):
            return signed.json(format)
        case .adAttributionKit(let jws):
            var writer = JSONWriter()
            writer.string(Self.jwsMember, jws)
            return writer.json
        }
    }

    /// The one member of an AdAttributionKit impression's JSON.
    static let jwsMember = "jws"

    /// Recognises a signed impression by its JSON: an object whose only member is a `jws` string is
    /// AdAttributionKit; anything else is read as one of SKAdNetwork's three shapes, recognised by their keys.
    public static func parse(_ bytes: some Collection<UInt8>) -> Result<SignedAttributionImpression, ImpressionRefusal> {
        let members: [JSONMember]
        switch JSONObjectReader.members(of: bytes) {
        case .failure(let error): return .failure(ImpressionRefusal(.malformed, "not a JSON object: \(error)"))
        case .success(let read): members = read
        }
        if members.count == 1, members[0].key == jwsMember, case .string(let jws) = members[0].value {
            return .success(.adAttributionKit(jws: jws))
        }
        return SignedImpression.parse(members: members)
            .map { .skadnetwork($0, format: nil) }
            .mapError { ImpressionRefusal(.malformed, $0.reason) }
    }

    /// Judges the impression as a device does, with the ad network's public key: the impression it carries, or
    /// why a device refuses it.
    public func verify(publicKey: ECPublicKey) -> Result<AttributionImpression, ImpressionRefusal> {
        switch self {
        case .skadnetwork(let signed, let format):
            switch ImpressionVerifier(publicKey: publicKey).verify(signed) {
            case .valid: .success(.skadnetwork(signed.impression, format: format))
            case .invalidFields(let reason): .failure(ImpressionRefusal(.invalidFields, reason))
            case .invalidSignature(let reason): .failure(ImpressionRefusal(.invalidSignature, reason))
            }
        case .adAttributionKit(let jws):
            AAKImpression.judge(jws, publicKey: publicKey).map { .adAttributionKit($0) }
        }
    }
}

/// Why a device refuses a signed impression, in the same words for both frameworks.
public struct ImpressionRefusal: Error, Sendable, Hashable {
    /// What kind of fault it is.
    public enum Kind: String, Sendable, Hashable {
        /// Not an impression a device can read (not JSON, no known shape, a broken JWS).
        case malformed
        /// Signed, but a value breaks the framework's rules (campaign-id outside 1–100, view-through before 2.2).
        case invalidFields = "invalid-fields"
        /// Not signed by this key as this network's (wrong key, field order, curve or signature encoding).
        case invalidSignature = "invalid-signature"
    }

    /// The kind, as `skan verify-impression` prints it.
    public let kind: Kind
    /// Why, naming the field or the signature's fault.
    public let reason: String

    /// A refusal of `kind` for `reason`.
    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }
}
