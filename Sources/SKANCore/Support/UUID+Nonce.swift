import COpenSSL
import Foundation

extension UUID {
    /// A fresh version-4 UUID from libcrypto's generator, for impression nonces.
    ///
    /// Why not `UUID()`: on Linux, Foundation opens, reads and closes `/dev/urandom` for every one, three system
    /// calls per signed impression; libcrypto's generator (a DRBG seeded from the kernel, one per thread) makes the
    /// same 122 random bits in user space. Should it ever fail, the nonce comes from `UUID()` instead.
    public static func random() -> UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let made = withUnsafeMutableBytes(of: &bytes) { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), 16) }
        guard made == 1 else { return UUID() }
        bytes.6 = bytes.6 & 0x0F | 0x40  // version 4
        bytes.8 = bytes.8 & 0x3F | 0x80  // RFC 9562's variant
        return UUID(uuid: bytes)
    }

    /// The UUID as lowercase text with dashes, the form Apple signs nonces in: the same text as
    /// `uuidString.lowercased()`, written straight from the bytes (Foundation formats through C's `snprintf`,
    /// then the text is lowercased into another string).
    public var lowercaseText: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                let hex: StaticString = "0123456789abcdef"
                var at = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    let byte = bytes[index]
                    text[at] = hex.utf8Start[Int(byte >> 4)]
                    text[at + 1] = hex.utf8Start[Int(byte & 0x0F)]
                    at += 2
                }
                return at
            }
        }
    }
}
