import Foundation
import Testing
@testable import SKANCore

@Suite("UUID nonces: libcrypto's random, lowercase text")
struct UUIDNonceTests {
    @Test("lowercaseText is uuidString lowercased, for every byte value in every position")
    func lowercaseText() {
        var generator = SystemRandomNumberGenerator()
        var samples = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                       UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        for value in 0...255 {
            var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes[value % 16] = UInt8(value)
            samples.append(NSUUID(uuidBytes: bytes) as UUID)
        }
        for uuid in samples {
            #expect(uuid.lowercaseText == uuid.uuidString.lowercased())
        }
        #expect(UUID(uuidString: "68753A44-4D6F-1226-9C60-0050E4C00067")!.lowercaseText == "68753a44-4d6f-1226-9c60-0050e4c00067")
    }

    @Test("version4(high:low:) puts the halves most significant byte first and sets the version and variant bits")
    func halves() {
        #expect(UUID.version4(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210).lowercaseText
                == "01234567-89ab-4def-bedc-ba9876543210")
        #expect(UUID.version4(high: 0, low: 0).lowercaseText == "00000000-0000-4000-8000-000000000000")
    }

    @Test("random() gives distinct version-4, RFC variant UUIDs that Foundation reads back")
    func random() {
        var seen = Set<UUID>()
        for _ in 0..<2_000 {
            let uuid = UUID.random()
            #expect(uuid.uuid.6 >> 4 == 4, "version nibble of \(uuid)")
            #expect(uuid.uuid.8 >> 6 == 0b10, "variant bits of \(uuid)")
            #expect(UUID(uuidString: uuid.uuidString) == uuid)
            seen.insert(uuid)
        }
        #expect(seen.count == 2_000)
    }

    @Test("random() spreads its other bits: every hex digit appears in every free position")
    func spread() {
        var digits = Array(repeating: Set<Character>(), count: 36)
        for _ in 0..<1_000 {
            for (index, character) in UUID.random().lowercaseText.enumerated() { digits[index].insert(character) }
        }
        for (index, seen) in digits.enumerated() {
            switch index {
            case 8, 13, 18, 23: #expect(seen == ["-"])
            case 14: #expect(seen == ["4"])
            case 19: #expect(seen == ["8", "9", "a", "b"])
            default: #expect(seen.count == 16, "position \(index): \(seen.sorted())")
            }
        }
    }
}
