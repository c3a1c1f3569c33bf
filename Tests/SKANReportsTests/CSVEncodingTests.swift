import CSV
import Foundation
import SKANReports
import Testing

@Suite("CSV encoding")
struct CSVEncodingTests {
    /// Random fields drawn from the characters that matter to CSV, plus plain and non-ASCII text.
    static func randomField(_ generator: inout some RandomNumberGenerator) -> String {
        let alphabet: [String] = ["a", "Z", "9", " ", ",", "\"", "\n", "\r", "\r\n", "é", "漢", "\t", ";", "'"]
        let length = Int.random(in: 0...12, using: &generator)
        return (0..<length).map { _ in alphabet.randomElement(using: &generator)! }.joined()
    }

    @Test("the encoder writes exactly what CSV.swift's writer writes, for 2,000 random records")
    func agreesWithCSVSwift() throws {
        var generator = SystemRandomNumberGenerator()
        var records: [[String]] = []
        for _ in 0..<2_000 {
            records.append((0..<Int.random(in: 1...6, using: &generator)).map { _ in Self.randomField(&generator) })
        }
        let stream = OutputStream(toMemory: ())
        stream.open()
        let writer = try CSVWriter(stream: stream, newline: .crlf)
        for record in records { try writer.write(row: record) }
        stream.close()
        var reference = Array(stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data ?? Data())
        // CSV.swift puts the separator before each record; RFC 4180 readers also want it after the last one.
        reference += CSVEncoding.newline
        #expect(CSVEncoding.text(records) == reference)
    }

    @Test("what the encoder writes, CSV.swift reads back unchanged")
    func roundTrip() throws {
        let records = [["id", "note"], ["1", "a,b"], ["2", "say \"hi\""], ["3", "two\nlines"], ["4", ""], ["5", "ünï"]]
        let reader = try CSVReader(string: String(decoding: CSVEncoding.text(records), as: UTF8.self), hasHeaderRow: false)
        var read: [[String]] = []
        while let row = reader.next() { read.append(row) }
        #expect(read == records)
    }
}
