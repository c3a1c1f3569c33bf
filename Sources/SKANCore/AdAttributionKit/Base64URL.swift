/// Base64url without padding (RFC 7515 §2, RFC 4648 §5), strictly: only the 64 URL-safe characters, no `=`, no
/// whitespace, a length that a real encoding can have, and zero in the bits a last character leaves over. So
/// every byte string has exactly one accepted spelling, and a re-encoded segment is refused, not read.
public enum Base64URL {
    /// The bytes `text` encodes, or `nil` when it is not canonical unpadded base64url.
    public static func decode(_ text: Substring) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    /// The bytes `text` (ASCII) encodes, or `nil` when it is not canonical unpadded base64url.
    ///
    /// This runs on every segment of every AdAttributionKit postback, so it decodes four characters into three
    /// bytes at a time, writes into the result's storage directly, and checks the alphabet once at the end: a
    /// byte outside it maps to 0xFF, and valid sextets never set the top two bits.
    public static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let tail = text.count % 4
        // A lone last character (6 bits) encodes no byte.
        guard tail != 1 else { return nil }
        let count = text.count / 4 * 3 + (tail == 0 ? 0 : tail - 1)
        var seen: UInt8 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            sextets.withUnsafeBufferPointer { table in
                func value(_ offset: Int) -> UInt32 {
                    let sextet = table[Int(text[offset])]
                    seen |= sextet
                    return UInt32(sextet)
                }
                var input = 0
                var written = 0
                while input + 4 <= text.count {
                    let group = value(input) << 18 | value(input + 1) << 12 | value(input + 2) << 6 | value(input + 3)
                    output[written] = UInt8(truncatingIfNeeded: group >> 16)
                    output[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    output[written + 2] = UInt8(truncatingIfNeeded: group)
                    input += 4
                    written += 3
                }
                // The bits a last character leaves over must be zero, or two spellings would decode alike.
                if tail == 2 {
                    let group = value(input) << 6 | value(input + 1)
                    if group & 0x0F != 0 { seen = 0xFF }
                    output[written] = UInt8(truncatingIfNeeded: group >> 4)
                } else if tail == 3 {
                    let group = value(input) << 12 | value(input + 1) << 6 | value(input + 2)
                    if group & 0x03 != 0 { seen = 0xFF }
                    output[written] = UInt8(truncatingIfNeeded: group >> 10)
                    output[written + 1] = UInt8(truncatingIfNeeded: group >> 2)
                }
            }
            initialized = count
        }
        return seen & 0xC0 == 0 ? bytes : nil
    }

    /// Each byte's value in the alphabet, 0xFF for a byte outside it.
    private static let sextets: [UInt8] = (0...255).map { sextet(UInt8($0)) ?? 0xFF }

    /// The base64url alphabet (RFC 4648 §5).
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` as unpadded base64url.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `bytes` as unpadded base64url to `out`, for writers that build their output as bytes.
    public static func append(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
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
