/// A JWS in compact serialization (RFC 7515 §7.1): `header.payload.signature`, each segment base64url. The
/// signature covers the ASCII of `header.payload` exactly as received, so the segments are kept as text and never
/// re-serialised (Apple's header escapes the slash in its kid: `apple-development-identifier\/1`).
public struct CompactJWS: Sendable, Hashable {
    /// The decoded header bytes (a JSON object's text).
    public let header: [UInt8]
    /// The decoded payload bytes (a JSON object's text).
    public let payload: [UInt8]
    /// The decoded signature bytes.
    public let signature: [UInt8]
    /// What the signature signs: the ASCII of `header.payload` as received.
    public let signingInput: [UInt8]

    /// Splits and decodes `text`, or says what is wrong with it (a reason naming the part at fault).
    public static func parse(_ text: String) -> Result<CompactJWS, CompactJWSError> {
        var text = text
        // Bytes, not Characters: splitting a String walks grapheme clusters, which cost more than the rest.
        return text.withUTF8 { parse(bytes: $0) }
    }

    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Result<CompactJWS, CompactJWSError> {
        var dots: [Int] = []
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: ".") {
            dots.append(index)
            if dots.count > 2 { break }
        }
        guard dots.count == 2 else {
            let count = dots.count > 2 ? bytes.reduce(1) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) } : dots.count + 1
            return .failure(CompactJWSError("a compact JWS has three base64url segments separated by dots, got \(count)"))
        }
        let ranges = [0..<dots[0], dots[0] + 1..<dots[1], dots[1] + 1..<bytes.count]
        for (range, name) in zip(ranges, ["header", "payload", "signature"]) where range.isEmpty {
            return .failure(CompactJWSError("the JWS \(name) segment is empty"))
        }
        func decode(_ range: Range<Int>) -> [UInt8]? { Base64URL.decode(UnsafeBufferPointer(rebasing: bytes[range])) }
        guard let header = decode(ranges[0]) else {
            return .failure(CompactJWSError("the JWS header segment is not unpadded base64url"))
        }
        guard let payload = decode(ranges[1]) else {
            return .failure(CompactJWSError("the JWS payload segment is not unpadded base64url"))
        }
        guard let signature = decode(ranges[2]) else {
            return .failure(CompactJWSError("the JWS signature segment is not unpadded base64url"))
        }
        return .success(CompactJWS(header: header, payload: payload, signature: signature,
                                   signingInput: Array(bytes[0..<dots[1]])))
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
        var signingInput = es256HeaderSegment(kid: kid)
        signingInput.append(UInt8(ascii: "."))
        Base64URL.append(payload.utf8, to: &signingInput)
        let signature = try key.es256Signature(for: signingInput)
        return String(decoding: signingInput, as: UTF8.self) + "." + Base64URL.encode(signature)
    }

    /// The header segment of an ES256 JWS under `kid`: `BASE64URL({"kid":…,"alg":"ES256"})`, the same for
    /// everything one key signs.
    public static func es256HeaderSegment(kid: String) -> [UInt8] {
        var header = JSONWriter()
        header.string("kid", kid)
        header.string("alg", "ES256")
        var segment: [UInt8] = []
        Base64URL.append(header.json.utf8, to: &segment)
        return segment
    }
}
