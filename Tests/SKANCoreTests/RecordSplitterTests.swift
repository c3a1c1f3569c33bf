import SKANCore
import Testing

@Suite("JSON record splitting")
struct RecordSplitterTests {
    func split(_ text: String, chunk: Int) -> [(String, Int, Bool)] {
        var splitter = JSONRecordSplitter(maximumRecordLength: 200)
        var records: [JSONRecordSplitter.Record] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            bytes[start..<end].withUnsafeBufferPointer { splitter.feed($0, into: &records) }
            start = end
        }
        splitter.finish(into: &records)
        return records.map { (String(decoding: $0.bytes, as: UTF8.self), $0.line, $0.isTooLong) }
    }

    @Test("JSON lines, a pretty object and a truncated line come out as separate records, at any chunk size",
          arguments: [1, 3, 7, 64, 4096])
    func mixed(chunk: Int) {
        let text = "{\"a\":1}\n\n{\n  \"b\": \"x}\\\"{\",\n  \"c\": [1]\n}\n{\"cut\": \"off\n{\"d\":2}\n  {\"e\":3}  "
        let records = split(text, chunk: chunk)
        #expect(records.map(\.0) == ["{\"a\":1}", "{\n  \"b\": \"x}\\\"{\",\n  \"c\": [1]\n}", "{\"cut\": \"off", "{\"d\":2}", "{\"e\":3}"])
        #expect(records.map(\.1) == [1, 3, 7, 8, 9])
    }

    @Test("a record over the limit is reported, its bytes dropped, and the next one read")
    func tooLong() {
        let long = "{\"x\":\"" + String(repeating: "a", count: 500) + "\"}"
        let records = split(long + "\n{\"y\":1}\n", chunk: 50)
        #expect(records.map(\.2) == [true, false])
        #expect(records.last?.0 == "{\"y\":1}")
    }

    @Test("an escaped backslash closes its string, and a brace inside a string opens nothing", arguments: [1, 2, 5, 64])
    func escapedBackslash(chunk: Int) {
        let records = split(#"{"f":"a\\"}"# + "\n" + #"{"g":"}{[","h":"\"\\"}"# + "\n", chunk: chunk)
        #expect(records.map(\.0) == [#"{"f":"a\\"}"#, #"{"g":"}{[","h":"\"\\"}"#])
    }
}
