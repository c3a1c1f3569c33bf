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
        return version4(bytes)
    }

    /// A version-4 UUID of 16 random bytes: their version nibble and variant bits set as RFC 9562 asks, 122 kept.
    public static func version4(_ bytes: uuid_t) -> UUID {
        var bytes = bytes
        bytes.6 = bytes.6 & 0x0F | 0x40
        bytes.8 = bytes.8 & 0x3F | 0x80
        return UUID(uuid: bytes)
    }

    /// A version-4 UUID of two random 64-bit halves, most significant byte first: what a seeded generator draws.
    public static func version4(high: UInt64, low: UInt64) -> UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { buffer in
            buffer.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            buffer.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return version4(bytes)
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
