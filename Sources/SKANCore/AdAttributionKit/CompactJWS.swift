/// A JWS in compact serialization (RFC 7515 §7.1): `header.payload.signature`, each segment base64url. The
/// signature covers the ASCII of `header.payload` exactly as received, so the segments are kept as text and never
/// re-serialised (Apple's header escapes the slash in its kid: `apple-development-identifier\/1`).
public struct CompactJWS: Sendable, Hashable {
    /// The header segment as received.
    public let encodedHeader: Substring
    /// The payload segment as received.
    public let encodedPayload: Substring
    /// The decoded header bytes (a JSON object's text).
    public let header: [UInt8]
    /// The decoded payload bytes (a JSON object's text).
    public let payload: [UInt8]
    /// The decoded signature bytes.
    public let signature: [UInt8]
    /// What the signature signs: `header.payload` as received.
    public let signingInput: Substring

    /// Splits and decodes `text`, or says what is wrong with it (a reason naming the part at fault).
    public static func parse(_ text: String) -> Result<CompactJWS, CompactJWSError> {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .failure(CompactJWSError("a compact JWS has three base64url segments separated by dots, got \(parts.count)"))
        }
        for (part, name) in zip(parts, ["header", "payload", "signature"]) where part.isEmpty {
            return .failure(CompactJWSError("the JWS \(name) segment is empty"))
        }
        guard let header = Base64URL.decode(parts[0]) else {
            return .failure(CompactJWSError("the JWS header segment is not unpadded base64url"))
        }
        guard let payload = Base64URL.decode(parts[1]) else {
            return .failure(CompactJWSError("the JWS payload segment is not unpadded base64url"))
        }
        guard let signature = Base64URL.decode(parts[2]) else {
            return .failure(CompactJWSError("the JWS signature segment is not unpadded base64url"))
        }
        let end = parts[1].endIndex
        return .success(CompactJWS(encodedHeader: parts[0], encodedPayload: parts[1], header: header, payload: payload,
                                   signature: signature, signingInput: text[text.startIndex..<end]))
    }
}

/// Why a text is not a compact JWS.
public struct CompactJWSError: Error, Sendable, Hashable {
    /// A sentence naming the segment at fault.
    public let reason: String
    init(_ reason: String) { self.reason = reason }
}

extension CompactJWS {
    /// Signs `payload` (a JSON object's text) with ES256 under `kid`, as Apple signs postbacks and ad networks sign
    /// AdAttributionKit impressions: header `{"kid":…,"alg":"ES256"}`, compact serialization, raw `r ‖ s`.
    public static func es256(payload: String, kid: String, key: ECPrivateKey) throws(SKANError) -> String {
        var header = JSONWriter()
        header.string("kid", kid)
        header.string("alg", "ES256")
        let signingInput = Base64URL.encode(header.json.utf8) + "." + Base64URL.encode(payload.utf8)
        let signature = try key.es256Signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}
