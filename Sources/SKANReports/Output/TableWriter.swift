/// Rows as CSV (RFC 4180 through CSV.swift), an aligned text table, or JSON lines (each object first carrying
/// ``JSONDocumentVersion/report``).
public enum OutputFormat: String, Sendable, CaseIterable {
    case csv, table, json
}

import SKANCore

/// Writes a header and rows in one of the ``OutputFormat``s. CSV and JSON lines stream row by row; a table
/// needs every row to size its columns, so it keeps them until ``finish()``.
public final class TableWriter {
    let format: OutputFormat
    let stream: BufferedOutput
    let csvText: CSVText
    private var header: [String] = []
    private var textColumns: Range<Int>?
    private var tableRows: [[String]] = []
    private var buffer: [UInt8] = []

    /// A writer onto `stream`; CSV text cells are written as `csvText` says (see ``begin(header:textColumns:)``).
    public init(format: OutputFormat, stream: BufferedOutput, csvText: CSVText = .spreadsheetSafe) {
        self.format = format
        self.stream = stream
        self.csvText = csvText
    }

    /// Writes everything at once.
    public func write(header: [String], rows: [[String]], textColumns: Range<Int>? = nil) throws(ReportError) {
        begin(header: header, textColumns: textColumns)
        for row in rows { append(row) }
        try finish()
    }

    /// Starts the output with its column names. `textColumns` are the columns of text from outside (a report's
    /// ``Report/textColumns``), which CSV neutralises as ``CSVText`` says; `nil`: every column. The header is text.
    public func begin(header: [String], textColumns: Range<Int>? = nil) {
        self.header = header
        self.textColumns = textColumns
        if format == .csv { csvText.appendRecord(header, to: &buffer) }
    }

    /// Adds one row.
    public func append(_ row: [String]) {
        switch format {
        case .csv:
            csvText.appendRecord(row, textColumns: textColumns, to: &buffer)
        case .json:
            var writer = JSONWriter()
            writer.integer(JSONDocumentVersion.snakeCaseKey, JSONDocumentVersion.report)
            for (name, cell) in zip(header, row) {
                if cell.isEmpty { writer.raw(name, "null") }
                else if Self.isJSONNumber(cell) { writer.raw(name, cell) }
                else { writer.string(name, cell) }
            }
            buffer += (writer.json + "\n").utf8
        case .table:
            tableRows.append(row)
        }
        if buffer.count >= 1 << 16 {
            stream.write(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Writes what is left and flushes.
    public func finish() throws(ReportError) {
        if format == .table { writeTable() }
        stream.write(buffer)
        buffer.removeAll()
        try stream.flush()
    }

    /// A cell that JSON can carry as a number: digits with an optional fraction, no leading zeros that
    /// would change its meaning ("0042" is a source identifier, not 42).
    static func isJSONNumber(_ cell: String) -> Bool {
        guard Double(cell)?.isFinite == true else { return false }
        let digits = cell.hasPrefix("-") ? cell.dropFirst() : Substring(cell)
        return !(digits.hasPrefix("0") && digits.count > 1 && !digits.hasPrefix("0."))
    }

    private func writeTable() {
        var widths = header.map(\.count)
        for row in tableRows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                // Numbers read best right-aligned, text left-aligned.
                return Double(cell) != nil ? padding + cell : cell + padding
            }.joined(separator: "  ")
        }
        var text = line(header) + "\n"
        text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for row in tableRows { text += line(row) + "\n" }
        buffer += text.utf8
    }
}
