import Crypto
import Foundation
@testable import SKANCore
import Testing

/// Our DER reader must accept exactly what swift-crypto's `ECDSASignature(derRepresentation:)` accepts, and give
/// the same `r ‖ s`: it replaced that call on the P-256 verify path.
@Suite("DER signatures")
struct DERSignatureTests {
    /// Our reading of `der`: the 64-byte `r ‖ s`, or nil when rejected.
    static func ours(_ der: [UInt8]) -> [UInt8]? {
        var raw = [UInt8](repeating: 0xAA, count: 64)
        let accepted = der.withUnsafeBytes { input in
            raw.withUnsafeMutableBytes { DERSignature.read(input, width: 32, into: $0) }
        }
        return accepted ? raw : nil
    }

    /// swift-crypto's reading of `der`.
    static func theirs(_ der: [UInt8]) -> [UInt8]? {
        (try? P256.Signing.ECDSASignature(derRepresentation: der)).map { Array($0.rawRepresentation) }
    }

    static let signatures: [[UInt8]] = {
        let key = P256.Signing.PrivateKey()
        // Enough signatures that some have r or s shorter than 32 bytes or with a top bit that needs a zero byte.
        return (0..<300).map { index in Array(try! key.signature(for: Data("message \(index)".utf8)).derRepresentation) }
    }()

    @Test("reads real signatures as swift-crypto does, short and padded integers among them")
    func realSignatures() {
        let lengths = Set(Self.signatures.map(\.count))
        #expect(lengths.count > 1, "the sample should hold integers of different lengths")
        for der in Self.signatures {
            let expected = Self.theirs(der)
            #expect(expected != nil)
            #expect(Self.ours(der) == expected)
        }
    }

    @Test("agrees with swift-crypto on every one-byte change, truncation and extension of a signature")
    func mutations() {
        var compared = 0, rejected = 0
        for der in Self.signatures.prefix(40) {
            var variants: [[UInt8]] = []
            for index in der.indices {
                for value: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF, der[index] &+ 1, der[index] &- 1] where value != der[index] {
                    var changed = der
                    changed[index] = value
                    variants.append(changed)
                }
                variants.append(Array(der.prefix(index)))
                var inserted = der
                inserted.insert(0x00, at: index)
                variants.append(inserted)
            }
            variants.append(der + [0x00])
            for variant in variants {
                let expected = Self.theirs(variant)
                #expect(Self.ours(variant) == expected, "differs on \(variant.map { String($0, radix: 16) })")
                compared += 1
                if expected == nil { rejected += 1 }
            }
        }
        #expect(rejected > 0 && rejected < compared, "the variants should include both kinds")
    }

    @Test("applies DER's integer rules", arguments: [
        // (description, DER, accepted)
        ("minimal integers", [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02], true),
        ("zero is one zero byte", [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x02], true),
        ("a leading zero the value does not need", [0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x02], false),
        ("a leading zero the top bit needs", [0x30, 0x07, 0x02, 0x02, 0x00, 0x80, 0x02, 0x01, 0x02], true),
        ("a negative integer", [0x30, 0x06, 0x02, 0x01, 0x80, 0x02, 0x01, 0x02], false),
        ("an empty integer", [0x30, 0x05, 0x02, 0x00, 0x02, 0x01, 0x02], false),
        ("a long-form length", [0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02], false),
        ("a sequence length one short", [0x30, 0x05, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02], false),
        ("a trailing byte", [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02, 0x00], false),
        ("a third integer", [0x30, 0x09, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02, 0x02, 0x01, 0x03], false),
        ("not a sequence", [0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02], false),
        ("an octet string for s", [0x30, 0x06, 0x02, 0x01, 0x01, 0x04, 0x01, 0x02], false),
        ("nothing", [], false),
    ] as [(String, [UInt8], Bool)])
    func integerRules(_ description: String, _ der: [UInt8], _ accepted: Bool) {
        #expect((Self.ours(der) != nil) == accepted, "\(description)")
        #expect(Self.ours(der) == Self.theirs(der), "\(description): differs from swift-crypto")
    }

    @Test("rejects an integer wider than the curve and pads a narrow one")
    func widths() {
        let wide = [UInt8](repeating: 0x11, count: 33)
        #expect(Self.ours([0x30, 0x26, 0x02, 0x21] + wide + [0x02, 0x01, 0x01]) == nil)
        let topBit = [0x00] + [UInt8](repeating: 0x91, count: 32)  // 33 bytes, of which 32 are the value
        let raw = Self.ours([0x30, 0x26, 0x02, 0x21] + topBit + [0x02, 0x01, 0x05])
        #expect(raw == [UInt8](repeating: 0x91, count: 32) + [UInt8](repeating: 0, count: 31) + [0x05])
        #expect(raw == Self.theirs([0x30, 0x26, 0x02, 0x21] + topBit + [0x02, 0x01, 0x05]))
    }

    @Test("agrees with swift-crypto on random bytes shaped like a signature")
    func randomInput() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let length = Int.random(in: 2...12, using: &generator)
            var der = (0..<length).map { _ in UInt8.random(in: 0...0x03, using: &generator) }
            der[0] = 0x30
            der[1] = UInt8(length - 2)
            if length > 2 { der[2] = 0x02 }
            #expect(Self.ours(der) == Self.theirs(der), "differs on \(der)")
        }
    }
}
