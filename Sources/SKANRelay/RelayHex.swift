/// Lowercase hex of bytes, as the relay's keys and signatures are written.
enum RelayHex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func string(_ bytes: some Sequence<UInt8>) -> String {
        var hex: [UInt8] = []
        hex.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
