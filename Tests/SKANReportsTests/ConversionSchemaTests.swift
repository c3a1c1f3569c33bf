import Foundation
import SKANCore
import SKANReports
import SKANTestSupport
import Testing

@Suite("Conversion value schema", .temporaryFolder)
struct ConversionSchemaTests {
    static let header = "conversion_value,coarse_value,event_name,event_count,revenue_low,revenue_high\n"

    @Test("fine and coarse rows decode into events and revenue ranges")
    func decodes() throws {
        let schema = try ConversionSchema(csv: Self.header + """
            12,,purchase,1,0.99,4.99
            12,,"tutorial, done",1,0,0
            ,high,purchase,2,10,50
            """, source: "s.csv")
        #expect(schema.events(conversionValue: 12, coarseValue: nil).map(\.name) == ["purchase", "tutorial, done"])
        #expect(schema.events(conversionValue: nil, coarseValue: .high).first?.count == 2)
        #expect(schema.events(conversionValue: 13, coarseValue: nil).isEmpty)
        #expect(schema.events(conversionValue: nil, coarseValue: nil).isEmpty, "a null value decodes to nothing, not to 0")
        #expect(schema.eventNames == ["purchase", "tutorial, done"])
    }

    @Test("a bad schema names the file, the row and the value", arguments: [
        ("64,,purchase,1,0,1", "s.csv: row 2: conversion_value must be an integer 0...63, got \"64\""),
        (",huge,purchase,1,0,1", "row 2: coarse_value must be low, medium or high, got \"huge\""),
        ("1,low,purchase,1,0,1", "row 2: give exactly one of conversion_value and coarse_value"),
        ("1,,purchase,x,0,1", "row 2: event_count must be a non-negative integer, got \"x\""),
        ("1,,purchase,1,5,1", "row 2: revenue_low 5.0 is above revenue_high 1.0"),
        ("1,,,1,0,1", "row 2: event_name is empty"),
    ])
    func badRows(row: String, message: String) {
        let error = #expect(throws: ReportError.self) { try ConversionSchema(csv: Self.header + row, source: "s.csv") }
        #expect(error?.code == .invalidSchema)
        #expect(error?.reason.contains(message) == true, "\(error?.reason ?? "")")
    }

    @Test("a row with fewer or more cells than the header is named as such, not as a bad value")
    func raggedRow() {
        for row in ["1,,open,1", "1,,open,1,0,0,9"] {
            let error = #expect(throws: ReportError.self) { try ConversionSchema(csv: Self.header + row, source: "s.csv") }
            let cells = row.split(separator: ",", omittingEmptySubsequences: false).count
            #expect(error?.reason == "s.csv: row 2 has \(cells) cells, the header 6 (\(ConversionSchema.columns.joined(separator: ",")))",
                    "\(error?.reason ?? "")")
        }
    }

    @Test("a schema file that cannot be read says why: missing, a folder, not UTF-8", arguments: ["missing", "folder", "binary"])
    func unreadableFile(kind: String) throws {
        let folder = try TemporaryFolder.current.url
        let path = folder.appendingPathComponent(kind == "folder" ? "schemas" : "schema.csv").path
        if kind == "folder" { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        if kind == "binary" { _ = FileManager.default.createFile(atPath: path, contents: Data([0xFF, 0xFE, 0x00, 0x62])) }
        let why = ["missing": "does not exist", "folder": "is a folder", "binary": "is not UTF-8 text"][kind]!
        let error = #expect(throws: ReportError.self) { try ConversionSchema.load(path: path) }
        #expect(error?.code == .invalidSchema)
        #expect(error?.reason == "--schema: \(path) \(why); expected a conversion value schema CSV with the header "
                + ConversionSchema.columns.joined(separator: ","), "\(error?.reason ?? "")")
    }

    @Test("a header without the needed columns is refused")
    func badHeader() {
        let error = #expect(throws: ReportError.self) { try ConversionSchema(csv: "value,name\n1,a\n", source: "s.csv") }
        #expect(error?.reason.contains("event_name") == true)
    }
}

@Suite("Report requests")
struct ReportRequestTests {
    @Test("unknown fields and bad dates get errors naming them", arguments: [
        ("campaign,bogus", nil, nil, "unknown field \"bogus\""),
        ("day", "2026-13-01", nil, "--from must be a date YYYY-MM-DD, got \"2026-13-01\""),
        ("day", "2026-02-29", nil, "--from must be a real day, got \"2026-02-29\""),
        ("day", "2026-05-02", "2026-05-01", "--from 2026-05-02 is after --to 2026-05-01"),
        ("day", nil, "yesterday", "--to must be a date YYYY-MM-DD, got \"yesterday\""),
    ] as [(String, String?, String?, String)])
    func errors(fields: String, from: String?, to: String?, message: String) {
        let error = #expect(throws: ReportError.self) {
            _ = try ReportRequest(fields: try ReportField.list(fields), from: from, to: to)
        }
        #expect(error?.reason.contains(message) == true, "\(error?.reason ?? "")")
    }

    @Test("a leap day is a real day")
    func leapDay() throws {
        #expect(try ReportRequest(fields: [.day], from: "2028-02-29").from == "2028-02-29")
    }
}
