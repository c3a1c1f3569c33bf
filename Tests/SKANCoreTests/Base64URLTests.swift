import Foundation
import Testing
@testable import SKANCore

@Suite("Base64URL: strict unpadded base64url")
struct Base64URLTests {
    /// Foundation's decoder on the same text, translated to the standard alphabet and padded: the reference.
    static func reference(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }

    @Test("every length 0-100 round-trips and matches Foundation's decoding")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...100 {
            for _ in 0..<8 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let text = Base64URL.encode(bytes)
                #expect(!text.contains("=") && text.count == (length * 4 + 2) / 3)
                #expect(Base64URL.decode(Substring(text)) == bytes, "\(text)")
                #expect(Self.reference(text) == bytes)
            }
        }
    }

    @Test("a byte outside the alphabet is refused at every position, in the body and in the tail")
    func foreignBytes() {
        let text = Array(Base64URL.encode(Array(0..<40)).utf8)  // 54 characters: 13 groups of 4 and a tail of 2
        for position in text.indices {
            for foreign in [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: " "), 0, 0x80, 0xFF] {
                var changed = text
                changed[position] = foreign
                let refused = changed.withUnsafeBufferPointer { Base64URL.decode($0) } == nil
                #expect(refused, "byte \(foreign) at \(position)")
            }
        }
    }

    @Test("non-canonical spellings are refused: a lone last character, non-zero left-over bits, padding")
    func canonical() {
        #expect(Base64URL.decode("A") == nil)
        #expect(Base64URL.decode("AAAAA") == nil)
        #expect(Base64URL.decode("QQ") == [0x41])
        #expect(Base64URL.decode("QR") == nil)      // 4 left-over bits not zero
        #expect(Base64URL.decode("QUI") == [0x41, 0x42])
        #expect(Base64URL.decode("QUJ") == nil)     // 2 left-over bits not zero
        #expect(Base64URL.decode("QQ==") == nil)
        #expect(Base64URL.decode("") == [])
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }
}
