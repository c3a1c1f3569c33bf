import SKANCore
import SKANStore

/// Streams every stored (or refused) postback out as CSV or JSON lines, one row at a time, in flat memory.
public enum Exporter {
    /// The export shapes.
    public enum Format: String, Sendable, CaseIterable {
        case csv, jsonl
    }

    /// Writes all rows of the postbacks (or refusals) table in arrival order and returns how many were written.
    /// CSV text cells are written as `csvText` says: safe to open in a spreadsheet unless `.raw`.
    @discardableResult
    public static func export(from reader: any PostbackReader, rejected: Bool, format: Format,
                              csvText: CSVText = .spreadsheetSafe,
                              to stream: BufferedOutput) async throws(ReportError) -> Int {
        try await export(from: reader, table: rejected ? .rejected : .postbacks, format: format, csvText: csvText, to: stream)
    }

    /// Writes all rows of `table` in arrival order (``ExportTable/repeats``: the kept repeats, conflicts among them)
    /// and returns how many were written.
    @discardableResult
    public static func export(from reader: any PostbackReader, table: ExportTable, format: Format,
                              csvText: CSVText = .spreadsheetSafe,
                              to stream: BufferedOutput) async throws(ReportError) -> Int {
        var count = 0
        var columns: [String] = []
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 17)
        do {
            try await reader.export(table) { header in
                columns = header
                if format == .csv { csvText.appendRecord(header, to: &buffer) }
            } each: { row in
                switch format {
                case .csv: Self.appendCSV(row, text: csvText, to: &buffer)
                case .jsonl: Self.appendJSON(row, names: columns, to: &buffer)
                }
                count += 1
                if buffer.count >= 1 << 17 {
                    stream.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
        } catch let error as StoreError {
            throw ReportError(.database, error.reason)
        } catch {
            throw ReportError(.output, "the export could not be written: \(error)")
        }
        stream.write(buffer)
        try stream.flush()
        return count
    }

    /// One row as a CSV record: numbers and text as the `sqlite3` shell prints them, NULL as the empty field; text
    /// (every value a client chose) neutralised as `text` says, numbers never.
    static func appendCSV(_ row: ExportRow, text: CSVText, to buffer: inout [UInt8]) {
        for index in 0..<row.valueCount {
            if index > 0 { buffer.append(0x2C) }
            switch row.value(at: index) {
            case .null: break
            // Integers straight into the buffer, without a String per cell.
            case .integer(let number): JSONWriter.appendInteger(number, to: &buffer)
            case .real(let number): buffer += String(number).utf8
            case .text(let bytes), .blob(let bytes): if !bytes.isEmpty { text.appendField(bytes, to: &buffer) }
            }
        }
        buffer.append(contentsOf: CSVEncoding.newline)
    }

    /// One row as a JSON object line: ``JSONDocumentVersion/export``, then members named by the header.
    static func appendJSON(_ row: ExportRow, names: [String], to buffer: inout [UInt8]) {
        var object = JSONWriter()
        object.integer(JSONDocumentVersion.snakeCaseKey, JSONDocumentVersion.export)
        for index in 0..<row.valueCount {
            let name = names[index]
            switch row.value(at: index) {
            case .null: object.raw(name, "null")
            case .integer(let number): object.integer(name, number)
            case .real(let number): object.raw(name, String(number))
            case .text(let bytes), .blob(let bytes): object.string(name, String(decoding: bytes, as: UTF8.self))
            }
        }
        buffer += object.json.utf8
        buffer.append(UInt8(ascii: "\n"))
    }
}
