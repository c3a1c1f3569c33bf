import Foundation
import SKANCore
import Testing

@Suite("JSON writer")
struct JSONWriterTests {
    /// What a standard parser reads back from the writer's bytes.
    static func parsed(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test("every string reads back as written: quotes, backslashes, control characters and non-ASCII")
    func stringsRoundTrip() throws {
        let awkward = "q\"b\\n\nr\rt\tnul\u{0}bell\u{7}esc\u{1B}us\u{1F} é ✓ 🎯 \u{2063}"
        var writer = JSONWriter()
        writer.string("awkward", awkward)
        writer.string("absent", nil as String?)
        writer.strings("list", ["a\"", "", "\u{1}"])
        writer.integer("min", Int64.min)
        writer.integer("max", UInt64.max)
        writer.bool("flag", true)
        let object = try Self.parsed(Array(writer.json.utf8))
        #expect(object["awkward"] as? String == awkward)
        #expect(object["absent"] is NSNull)
        #expect(object["list"] as? [String] == ["a\"", "", "\u{1}"])
        #expect(object["flag"] as? Bool == true)
        // Foundation reads 64-bit extremes as NSNumber; compare their text, which the writer must not round.
        #expect(writer.json.contains(#""min":-9223372036854775808"#))
        #expect(writer.json.contains(#""max":18446744073709551615"#))
        // Members keep the order they were written in.
        #expect(writer.json.hasPrefix(#"{"awkward":"#))
    }

    @Test("control characters use the short escapes where JSON has them and \\u00XX otherwise")
    func controlEscapes() {
        #expect(JSONWriter.quoted("\n\r\t\u{1F}\u{0}") == #""\n\r\t\u001f\u0000""#)
    }

    @Test("lines written with the static helpers follow what is already there, one object per line")
    func appendedObjects() throws {
        var buffer = Array("prefix\n".utf8)
        for index in 0..<3 {
            JSONWriter.appendLiteral(#"{"n":"#, to: &buffer)
            JSONWriter.appendInteger(Int64(index), to: &buffer)
            JSONWriter.appendLiteral(#","location":""#, to: &buffer)
            JSONWriter.appendEscaped("dir/\"odd\".jsonl", to: &buffer)
            buffer.append(UInt8(ascii: ":"))
            JSONWriter.appendInteger(Int64(index + 1), to: &buffer)
            JSONWriter.appendLiteral("\"}\n", to: &buffer)
        }
        let lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.first == "prefix")
        for (index, line) in lines.dropFirst().enumerated() {
            let object = try Self.parsed(Array(line.utf8))
            #expect(object["n"] as? Int == index)
            #expect(object["location"] as? String == "dir/\"odd\".jsonl:\(index + 1)")
        }
    }

    @Test("literals are appended byte for byte, unescaped")
    func literals() {
        var out = Array("x".utf8)
        JSONWriter.appendLiteral(#","key":"é\"}"#, to: &out)
        #expect(out == Array(#"x,"key":"é\"}"#.utf8))
    }
}
