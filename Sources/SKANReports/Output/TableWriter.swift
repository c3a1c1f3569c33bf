/// Rows as CSV (RFC 4180 through CSV.swift), an aligned text table, or JSON lines.
public enum OutputFormat: String, Sendable, CaseIterable {
    case csv, table, json
}

import CSV
import SKANCore

/// Writes a header and rows in one of the ``OutputFormat``s.
public struct TableWriter {
    let format: OutputFormat
    let stream: BufferedOutputStream

    /// A writer onto `stream`.
    public init(format: OutputFormat, stream: BufferedOutputStream) {
        self.format = format
        self.stream = stream
    }

    /// Writes everything at once (reports are small: one row per group).
    public func write(header: [String], rows: [[String]]) throws(ReportError) {
        switch format {
        case .csv:
            do {
                let writer = try CSVWriter(stream: stream, newline: .crlf)
                try writer.write(row: header)
                for row in rows { try writer.write(row: row) }
                // CSV.swift puts the line break before each row; RFC 4180 readers also want one after the last.
                stream.write("\r\n")
            } catch {
                throw ReportError(.output, "cannot write CSV: \(error)")
            }
        case .table:
            var widths = header.map(\.count)
            for row in rows {
                for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
            }
            func line(_ cells: [String]) -> String {
                cells.enumerated().map { index, cell in
                    let padding = String(repeating: " ", count: widths[index] - cell.count)
                    // Numbers read best right-aligned, text left-aligned.
                    return Double(cell) != nil ? padding + cell : cell + padding
                }.joined(separator: "  ")
            }
            stream.write(line(header) + "\n")
            stream.write(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n")
            for row in rows { stream.write(line(row) + "\n") }
        case .json:
            for row in rows {
                var writer = JSONWriter()
                for (name, cell) in zip(header, row) {
                    if cell.isEmpty { writer.raw(name, "null") }
                    else if let number = Double(cell), number.isFinite, !cell.hasPrefix("0") || cell == "0" || cell.hasPrefix("0.") {
                        writer.raw(name, cell)
                    } else {
                        writer.string(name, cell)
                    }
                }
                stream.write(writer.json + "\n")
            }
        }
        try stream.flush()
    }
}
