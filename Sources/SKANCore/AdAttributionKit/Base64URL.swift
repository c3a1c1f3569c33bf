/// Base64url without padding (RFC 7515 §2, RFC 4648 §5), strictly: only the 64 URL-safe characters, no `=`, no
/// whitespace, a length that a real encoding can have, and zero in the bits a last character leaves over. So
/// every byte string has exactly one accepted spelling, and a re-encoded segment is refused, not read.
public enum Base64URL {
    /// The bytes `text` encodes, or `nil` when it is not canonical unpadded base64url.
    public static func decode(_ text: Substring) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    /// The bytes `text` (ASCII) encodes, or `nil` when it is not canonical unpadded base64url. Table-driven:
    /// this runs on every segment of every AdAttributionKit postback.
    public static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in text {
            let value = sextets[Int(character)]
            guard value != 0xFF else { return nil }
            buffer = (buffer << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        // A lone last character (6 bits) encodes no byte; left-over bits must be zero.
        guard bits < 6, buffer == 0 else { return nil }
        return bytes
    }

    /// Each byte's value in the alphabet, 0xFF for a byte outside it.
    private static let sextets: [UInt8] = (0...255).map { sextet(UInt8($0)) ?? 0xFF }

    /// `bytes` as unpadded base64url.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int((buffer >> UInt32(bits)) & 0x3F)])
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(6 - bits)) & 0x3F)]) }
        return String(decoding: out, as: UTF8.self)
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
