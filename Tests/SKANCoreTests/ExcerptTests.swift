import SKANCore
import Testing

@Suite("Excerpts of client values")
struct ExcerptTests {
    @Test("a value within the bound is kept as it is")
    func short() {
        #expect(Excerpt.of("4.0", maximumBytes: 16) == "4.0")
        #expect(Excerpt.of(String(repeating: "a", count: 16), maximumBytes: 16) == String(repeating: "a", count: 16))
    }

    @Test("a longer value is cut to the bound, on a character boundary, and says its original length",
          arguments: [("a", 65_000), ("é", 30_000), ("👍🏽", 5_000)])
    func long(character: String, count: Int) {
        let text = String(repeating: character, count: count)
        let cut = Excerpt.of(text, maximumBytes: 96)
        #expect(cut.utf8.count <= 96)
        #expect(cut.hasSuffix("…[\(text.utf8.count) bytes]"))
        let kept = cut.dropLast("…[\(text.utf8.count) bytes]".count)
        #expect(!kept.isEmpty && kept.allSatisfy { String($0) == character })
    }

    @Test("a line for a log has no raw control character and cannot be read as two lines")
    func printable() {
        let forged = "x\n2026-01-01T00:00:00+0000 critical skan.serve: FAKE LINE\r\u{1B}[31m\u{2028}\\n\t\u{7F}"
        let line = Excerpt.printable(forged, maximumBytes: 512)
        #expect(line == #"x\n2026-01-01T00:00:00+0000 critical skan.serve: FAKE LINE\r\u{1b}[31m\u{2028}\n\t\u{7f}"#)
        #expect(Excerpt.printable(line, maximumBytes: 512) == line, "escaping twice changes nothing")
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x2028 })
        #expect(Excerpt.printable("plain ünïcode", maximumBytes: 512) == "plain ünïcode")
        #expect(Excerpt.printable(String(repeating: "\n", count: 10_000), maximumBytes: 100).utf8.count <= 100)
    }

    @Test("bidirectional overrides and other invisible format characters are escaped, so a line shows its real order",
          arguments: [0x202E, 0x202D, 0x202A, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C, 0x200B, 0xFEFF])
    func invisibleFormatCharacters(_ value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let line = Excerpt.printable("a\(Character(scalar))gpj.exe", maximumBytes: 512)
        #expect(line == "a\\u{\(String(value, radix: 16))}gpj.exe")
        #expect(Excerpt.printable(line, maximumBytes: 512) == line)
    }

    @Test("an unsupported version is quoted in the reason only as an excerpt")
    func unsupportedVersionReason() {
        let version = String(repeating: "9", count: 60_000)
        let verdict = PostbackVerifier().verify(Array(#"{"version":"\#(version)","transaction-id":"t"}"#.utf8))
        #expect(verdict.status == .unsupportedVersion)
        let reason = verdict.reason ?? ""
        #expect(reason.utf8.count < 300)
        #expect(reason.contains("[60000 bytes]"))
    }
}
