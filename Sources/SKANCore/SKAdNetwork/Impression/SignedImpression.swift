import Foundation

/// An impression and the ad network's signature over it, ready to hand to a device.
public struct SignedImpression: Sendable, Hashable {
    /// The impression.
    public let impression: Impression
    /// Base64 DER ECDSA-SHA256 signature over ``Impression/signedString``.
    public let signature: String

    /// Pairs an impression with its signature.
    public init(impression: Impression, signature: String) {
        self.impression = impression
        self.signature = signature
    }

    /// The impression as JSON in one of the shapes a device takes. `fidelity-type` is signed but never
    /// written: no shape has a key for it.
    public func json(_ format: ImpressionFormat? = nil) -> String {
        let format = format ?? ImpressionFormat(for: impression.kind)
        let impression = impression
        var writer = JSONWriter()
        func put(_ role: ImpressionFormat.Role, _ write: (inout JSONWriter, String) -> Void) {
            if let key = format.key(role) { write(&writer, key) }
        }
        if impression.version.hasVersionAndSource || format != .storeKitParameters {
            put(.version) { $0.string($1, impression.version.rawValue) }
        }
        put(.adNetworkID) { $0.string($1, impression.adNetworkID) }
        if let campaignID = impression.campaignID { put(.campaignID) { $0.integer($1, campaignID) } }
        if let sourceIdentifier = impression.sourceIdentifier { put(.sourceIdentifier) { $0.integer($1, sourceIdentifier) } }
        put(.itunesItemID) { $0.integer($1, impression.itunesItemID) }
        put(.nonce) { $0.string($1, impression.nonceText) }
        if let sourceAppID = impression.sourceAppID { put(.sourceAppID) { $0.integer($1, sourceAppID) } }
        if let sourceDomain = impression.sourceDomain { put(.sourceDomain) { $0.string($1, sourceDomain) } }
        put(.timestamp) { $0.integer($1, impression.timestamp) }
        put(.signature) { $0.string($1, signature) }
        return writer.json
    }

    /// Reads a signed impression from any of the three JSON shapes, recognised by their keys.
    public static func parse(_ bytes: some Collection<UInt8>) -> Result<SignedImpression, SKANError> {
        switch JSONObjectReader.members(of: bytes) {
        case .failure(let error): .failure(SKANError(.invalidImpression, "not a JSON object: \(error)"))
        case .success(let members): parse(members: members)
        }
    }

    /// Reads a signed impression from JSON members.
    public static func parse(members: [JSONMember]) -> Result<SignedImpression, SKANError> {
        let values = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard let format = ImpressionFormat.detect(Set(values.keys)) else {
            return .failure(SKANError(.invalidImpression,
                "no ad network key found; expected SKStoreProductParameterAdNetworkIdentifier, adNetworkIdentifier or ad_network_id"))
        }
        func fail(_ key: String, _ reason: String) -> SKANError { SKANError(.invalidImpression, "\(key) \(reason)") }
        func text(_ role: ImpressionFormat.Role, required: Bool = true) throws(SKANError) -> String? {
            guard let key = format.key(role), let value = values[key] else {
                if required { throw fail(format.key(role) ?? "\(role)", "is missing") }
                return nil
            }
            guard case .string(let string) = value else { throw fail(key, "must be a string, got \(value.described)") }
            return string
        }
        func integer(_ role: ImpressionFormat.Role) throws(SKANError) -> Int? {
            guard let key = format.key(role), let value = values[key] else { return nil }
            guard case .number(let number) = value, let integer = Int(number) else {
                throw fail(key, "must be an integer, got \(value.described)")
            }
            return integer
        }
        do throws(SKANError) {
            let versionText = try text(.version, required: false) ?? "1.0"
            guard let version = ImpressionVersion(rawValue: versionText) else {
                throw fail(format.key(.version)!, "must be one of \(ImpressionVersion.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(versionText)\"")
            }
            let nonceText = try text(.nonce)!
            guard let nonce = UUID(uuidString: nonceText) else {
                throw fail(format.key(.nonce)!, "must be a UUID, got \"\(nonceText)\"")
            }
            guard let itunesItemID = try integer(.itunesItemID) else { throw fail(format.key(.itunesItemID)!, "is missing") }
            guard let timestamp = try integer(.timestamp) else { throw fail(format.key(.timestamp)!, "is missing") }
            let impression = Impression(
                version: version, kind: format.kind, adNetworkID: try text(.adNetworkID)!,
                campaignID: try integer(.campaignID), sourceIdentifier: try integer(.sourceIdentifier),
                itunesItemID: itunesItemID, nonce: nonce, sourceAppID: try integer(.sourceAppID),
                sourceDomain: try text(.sourceDomain, required: false), timestamp: Int64(timestamp))
            return .success(SignedImpression(impression: impression, signature: try text(.signature)!))
        } catch {
            return .failure(error)
        }
    }
}
