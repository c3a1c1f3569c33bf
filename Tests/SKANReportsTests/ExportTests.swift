import CSV
import Foundation
import SKANCore
import SKANReports
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

@Suite("Export", .temporaryFolder)
struct ExportTests {
    /// Bodies a careless relay might send: commas, quotes, line breaks, non-ASCII.
    static let awkward = [
        #"{"ad-network-id":"a,b","note":"she said \"hi\""}"#,
        "{\"x\":\"line one\nline two\r\nthree\"}",
        "plain, with a comma",
        "ünïcödé \"quoted\", and\nnewline",
    ]

    @Test("values with commas, quotes and newlines survive a CSV round trip, and JSONL keeps them too")
    func roundTrip() async throws {
        let path = try TemporaryFolder.current.path("export-\(UUID().uuidString).sqlite")
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        let verifier = AttributionVerifier()
        let entries = Self.awkward.map { body in
            StoreEntry.rejected(RejectedPostback(verdict: verifier.verify(Array(body.utf8)), rawBody: Array(body.utf8),
                                                 receivedAt: Date(timeIntervalSince1970: 1_770_000_000), endpoint: "/postbacks"))
        }
        _ = try await store.write(entries)
        try await store.close()

        let csvPath = path + ".csv"
        let stream = try BufferedOutput(path: csvPath)
        let count = try await Exporter.export(from: SQLitePostbackReader(path: path), rejected: true, format: .csv, to: stream)
        try stream.commit()
        #expect(count == Self.awkward.count)

        let reader = try CSVReader(string: String(contentsOfFile: csvPath, encoding: .utf8), hasHeaderRow: true)
        let header = try #require(reader.headerRow)
        let bodyColumn = try #require(header.firstIndex(of: "raw_body"))
        let reasonColumn = try #require(header.firstIndex(of: "reason"))
        var bodies: [String] = []
        var reasons: [String] = []
        while let row = reader.next() {
            bodies.append(row[bodyColumn])
            reasons.append(row[reasonColumn])
        }
        #expect(bodies == Self.awkward)
        #expect(reasons.allSatisfy { !$0.isEmpty })

        let jsonPath = path + ".jsonl"
        let jsonStream = try BufferedOutput(path: jsonPath)
        try await Exporter.export(from: SQLitePostbackReader(path: path), rejected: true, format: .jsonl, to: jsonStream)
        try jsonStream.commit()
        let lines = try String(contentsOfFile: jsonPath, encoding: .utf8).split(separator: "\n")
        let decoded = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(decoded.map { $0["raw_body"] as? String } == Self.awkward)
        // Each line names its document's version first, for a reader to refuse a shape it does not know.
        #expect(decoded.allSatisfy { $0["schema_version"] as? Int == JSONDocumentVersion.export })
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"schema_version":1,"#) })
    }
}
