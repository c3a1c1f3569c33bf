import CSV
import GRDB
import SKANCore

/// Streams every stored (or refused) postback out as CSV or JSON lines, one row at a time, in flat memory.
public enum Exporter {
    /// The export shapes.
    public enum Format: String, Sendable, CaseIterable {
        case csv, jsonl
    }

    /// Writes all rows of `postbacks` (or `rejected_postbacks`) in id order and returns how many were written.
    @discardableResult
    public static func export(from database: DatabaseQueue, rejected: Bool, format: Format,
                              to stream: BufferedOutputStream) throws(ReportError) -> Int {
        let table = rejected ? "rejected_postbacks" : "postbacks"
        var count = 0
        do {
            try database.read { db in
                guard try db.tableExists(table) else {
                    throw ReportError(.database, "--db: the database has no \(table) table")
                }
                let columns = try db.columns(in: table).map(\.name)
                let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM \(table) ORDER BY id")
                switch format {
                case .csv:
                    let writer = try CSVWriter(stream: stream, newline: .crlf)
                    try writer.write(row: columns)
                    while let row = try cursor.next() {
                        try writer.write(row: row.databaseValues.map { ReportBuilder.text($0) ?? "" })
                        count += 1
                    }
                    stream.write("\r\n")
                case .jsonl:
                    while let row = try cursor.next() {
                        var object = JSONWriter()
                        for (name, value) in zip(columns, row.databaseValues) {
                            switch value.storage {
                            case .null: object.raw(name, "null")
                            case .int64(let number): object.integer(name, number)
                            case .double(let number): object.raw(name, String(number))
                            case .string(let text): object.string(name, text)
                            case .blob(let data): object.string(name, String(decoding: data, as: UTF8.self))
                            }
                        }
                        stream.write(object.json + "\n")
                        count += 1
                    }
                }
            }
        } catch let error as ReportError {
            throw error
        } catch {
            throw ReportError(.database, "the export failed: \(error)")
        }
        try stream.flush()
        return count
    }
}
