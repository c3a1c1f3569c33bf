import GRDB
import GRDBSQLite
import SKANStore

/// The values of one row, bound to a cached GRDB statement through SQLite's C API and run.
///
/// Why: for the collector's insert (24 columns per postback, on the single writer), building GRDB's boxed
/// `StatementArguments` and its per-execution bookkeeping cost more CPU than SQLite's own insert (perf under
/// load). GRDB still prepares and caches the statement, and owns the connection and the transaction; GRDB
/// documents this use of `Statement.sqliteStatement`. Text and blobs are copied into one buffer and bound
/// without a further copy (`SQLITE_STATIC`), valid until the step returns.
struct RowBinding {
    private enum Value {
        case null
        case integer(Int64)
        case text(Range<Int>)
        case blob(Range<Int>)
    }

    private var values: [Value] = []
    private var bytes: [UInt8] = []

    init(capacity: Int) {
        values.reserveCapacity(capacity)
        bytes.reserveCapacity(1024)
    }

    mutating func text(_ value: String?) {
        guard let value else { return values.append(.null) }
        let start = bytes.count
        bytes += value.utf8
        values.append(.text(start..<bytes.count))
    }

    mutating func integer(_ value: (some BinaryInteger)?) {
        values.append(value.map { .integer(Int64($0)) } ?? .null)
    }

    mutating func bool(_ value: Bool?) {
        values.append(value.map { .integer($0 ? 1 : 0) } ?? .null)
    }

    /// Appends one column's value.
    mutating func append(_ value: ColumnValue) {
        switch value {
        case .null: values.append(.null)
        case .integer(let number): values.append(.integer(number))
        case .text(let text): self.text(text)
        case .blob(let bytes): blob(bytes)
        }
    }

    mutating func blob(_ value: [UInt8]) {
        let start = bytes.count
        bytes += value
        values.append(.blob(start..<bytes.count))
    }

    /// Binds every value in order, steps once, and returns how many rows the statement changed.
    func run(_ statement: Statement, in db: Database) throws -> Int {
        let raw = statement.sqliteStatement
        let code = bytes.withUnsafeBufferPointer { buffer -> CInt in
            // SQLite reads an empty text or blob from a null pointer as NULL; the copy it makes of a transient
            // one keeps it empty instead.
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            sqlite3_reset(raw)
            for (offset, value) in values.enumerated() {
                let index = CInt(offset + 1)
                switch value {
                case .null:
                    sqlite3_bind_null(raw, index)
                case .integer(let number):
                    sqlite3_bind_int64(raw, index, number)
                case .text(let range) where range.isEmpty:
                    sqlite3_bind_text(raw, index, "", 0, transient)
                case .text(let range):
                    let start = UnsafeRawPointer(buffer.baseAddress! + range.lowerBound).assumingMemoryBound(to: CChar.self)
                    sqlite3_bind_text(raw, index, start, CInt(range.count), nil)
                case .blob(let range) where range.isEmpty:
                    sqlite3_bind_zeroblob(raw, index, 0)
                case .blob(let range):
                    sqlite3_bind_blob(raw, index, buffer.baseAddress! + range.lowerBound, CInt(range.count), nil)
                }
            }
            let code = sqlite3_step(raw)
            // Reset now, while the bound bytes still exist, so that the statement holds no pointer into them.
            sqlite3_reset(raw)
            sqlite3_clear_bindings(raw)
            return code
        }
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                                sql: statement.sql)
        }
        return Int(sqlite3_changes(db.sqliteConnection))
    }
}
