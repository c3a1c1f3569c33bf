import GRDB
import GRDBSQLite
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
                              to stream: BufferedOutput) throws(ReportError) -> Int {
        let table = rejected ? "rejected_postbacks" : "postbacks"
        var count = 0
        do {
            try database.read { db in
                guard try db.tableExists(table) else {
                    throw ReportError(.database, "--db: the database has no \(table) table")
                }
                let columns = try db.columns(in: table).map(\.name)
                let statement = try db.makeStatement(sql: "SELECT * FROM \(table) ORDER BY id")
                let cursor = try Row.fetchCursor(statement)
                switch format {
                case .csv:
                    var buffer: [UInt8] = []
                    buffer.reserveCapacity(1 << 17)
                    CSVEncoding.appendRecord(columns, to: &buffer)
                    // GRDB prepares, steps and finalizes the statement; the columns of the current row are read
                    // straight from it, because decoding each value through GRDB's generic path cost more than
                    // the query itself.
                    let raw = statement.sqliteStatement
                    let columnCount = Int32(columns.count)
                    while try cursor.next() != nil {
                        for index in 0..<columnCount {
                            if index > 0 { buffer.append(0x2C) }
                            Self.appendCSV(column: index, of: raw, to: &buffer)
                        }
                        buffer.append(contentsOf: CSVEncoding.newline)
                        count += 1
                        if buffer.count >= 1 << 17 {
                            stream.write(buffer)
                            buffer.removeAll(keepingCapacity: true)
                        }
                    }
                    stream.write(buffer)
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

    /// One column of the statement's current row as a CSV field: numbers and text as SQLite renders them as text
    /// (what the `sqlite3` shell prints), NULL as the empty field.
    static func appendCSV(column: Int32, of statement: OpaquePointer, to buffer: inout [UInt8]) {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL:
            break
        case SQLITE_BLOB:
            let length = Int(sqlite3_column_bytes(statement, column))
            guard length > 0, let bytes = sqlite3_column_blob(statement, column) else { return }
            CSVEncoding.appendField(UnsafeBufferPointer(start: bytes.assumingMemoryBound(to: UInt8.self), count: length), to: &buffer)
        default:
            guard let text = sqlite3_column_text(statement, column) else { return }
            let length = Int(sqlite3_column_bytes(statement, column))
            CSVEncoding.appendField(UnsafeBufferPointer(start: text, count: length), to: &buffer)
        }
    }
}
