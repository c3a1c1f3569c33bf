import Foundation
import GRDB
import GRDBSQLite
import SKANStore

/// The read side of a SQLite store: reports and exports, read-only, so they can run beside a live collector.
public final class SQLitePostbackReader: PostbackReader {
    private let database: DatabaseQueue
    private let path: String
    /// The files (the database, its rollups file) whose `-wal` and `-shm` files were absent when this reader opened
    /// them: a read-only connection makes them and cannot remove them, which left empty files beside the database
    /// after every report.
    private let madeSideFiles: [String]

    /// Opens the collector's database at `path` for reading.
    ///
    /// A database made by an older release is first brought up to the current schema (one short write
    /// transaction, the same migrations the collector runs on start), so that every query here reads one schema.
    /// A file whose `postbacks` table the collector did not make is refused: another program's table of that
    /// name may have other columns.
    public init(path: String) throws(StoreError) {
        self.path = path
        let rollups = SQLiteRollupFolder.rollupsPath(for: path)
        madeSideFiles = [path, rollups].filter { file in
            !["-wal", "-shm"].contains { FileManager.default.fileExists(atPath: file + $0) }
        }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            var queue = try DatabaseQueue(path: path, configuration: configuration)
            let state = try queue.read { db in
                (isCollector: try Self.isCollectorDatabase(db),
                 isCurrent: try SQLiteSchema.isCurrent(db))
            }
            guard state.isCollector else {
                throw StoreError(.notCollectorDatabase, "\(path) is not a SKANKit collector database (no postbacks "
                                 + "table made by the collector's schema)")
            }
            try queue.close()
            // A rollups file that is missing (removed, or a database copied without it) is made again, empty: reads
            // then count every row from `postbacks`, and the next collector folds them all.
            if !state.isCurrent || !FileManager.default.fileExists(atPath: rollups) {
                let writer = try DatabaseQueue(path: path)
                try SQLiteSchema.migrate(writer, path: path)
                try writer.close()
            }
            // The rollups are read from their own file (SQLiteRollupFolder): SQLite finds a table that the database
            // does not have in the files attached to it.
            configuration.prepareDatabase { db in
                try db.execute(sql: "ATTACH DATABASE ? AS \(SQLiteRollupFolder.attachedRollups)", arguments: [rollups])
            }
            queue = try DatabaseQueue(path: path, configuration: configuration)
            if try !queue.read(SQLiteRollupSchema.counts) {
                // A rollups file that counts another database (one made again at this path): emptied, then refolded.
                try queue.close()
                let writer = try DatabaseQueue(path: path)
                try SQLiteSchema.migrate(writer, path: path)
                try writer.close()
                queue = try DatabaseQueue(path: path, configuration: configuration)
            }
            database = queue
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.cannotOpen, "cannot read \(path): \(error)")
        }
    }

    /// Closes the file and, when this reader made the `-wal` and `-shm` files, has them removed: a read-write
    /// connection that SQLite finds to be the last one on the file deletes both as it closes, and SQLite, not this
    /// reader, decides whether it is the last (a collector that opened the file meanwhile keeps them).
    public func close() async {
        try? database.close()
        for file in madeSideFiles where FileManager.default.fileExists(atPath: file + "-wal") {
            guard let last = try? DatabaseQueue(path: file) else { continue }
            // SQLite opens the WAL only on a first read, and deletes it only if it opened it.
            _ = try? await last.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            try? last.close()
        }
    }

    /// The collector's first schema migration, the one that creates `postbacks`: it records each step it ran.
    static func isCollectorDatabase(_ db: Database) throws -> Bool {
        try db.tableExists("grdb_migrations")
            && Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = ?)",
                             arguments: [SQLiteSchema.firstStep]) == true
            && db.tableExists(PostbackTable.name)
    }

    /// The statement an aggregate runs on SQLite, without a database (`skan report --print-sql`).
    public static func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) {
        SQLiteAggregateSQL.statement(for: query)
    }

    public func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) {
        Self.statement(for: query)
    }

    /// Reads on the calling thread: SQLite is a file, and GRDB's async reads would need `each` to be `Sendable`.
    public func aggregate(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) async throws {
        try aggregateNow(query, each: each)
    }

    public func export(_ table: ExportTable, header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) async throws {
        try exportNow(table, header: header, each: each)
    }

    public func export(_ table: ExportTable, page: ExportPage, header: ([String]) throws -> Void,
                       each: (ExportRow) throws -> Void) async throws {
        var arguments: [any DatabaseValueConvertible] = [page.after]
        if let from = page.from { arguments.append(from) }
        if let to = page.to { arguments.append(to) }
        arguments.append(page.limit)
        try exportNow(table, sql: page.statement(table) { _ in "?" }, arguments: StatementArguments(arguments),
                      header: header, each: each)
    }

    public func outboxDepths() async throws -> [OutboxDepth] {
        try readOutbox { db in try SQLiteOutbox.depths(db) }
    }

    public func deadLetters(limit: Int) async throws -> [DeadLetter] {
        try readOutbox { db in try SQLiteOutbox.deadLetters(limit: limit, in: db) }
    }

    private func readOutbox<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try database.read(body)
        } catch let error as DatabaseError {
            throw StoreError(.readFailed, "cannot read the relay outbox: \(error)")
        }
    }

    public func stats() async throws -> StoreStats { try statsNow() }

    public func checks(from: String?, to: String?) async throws -> [PostbackChecks] { try checksNow(from: from, to: to) }

    public func latestConflicts(limit: Int) async throws -> [ConflictSummary] { try conflictsNow(limit: limit) }

    public func repeatCounts(from: String?, to: String?) async throws -> [RepeatCounts] {
        try repeatCountsNow(from: from, to: to)
    }

    private func repeatCountsNow(from: String?, to: String?) throws -> [RepeatCounts] {
        try countsByNetwork(RepeatCounts.statement(from: from, to: to) { _ in "?" }, "cannot count the repeats")
            .map(RepeatCounts.init(network:counts:))
    }

    /// The rows of a statement of a network and counts (``PostbackChecks``, ``RepeatCounts``), failing as `what`.
    private func countsByNetwork(_ statement: (sql: String, arguments: [String]), _ what: String) throws
        -> [(network: String, counts: [Int])] {
        do {
            return try database.read { db in
                try Row.fetchAll(db, sql: statement.sql, arguments: StatementArguments(statement.arguments)).map { row in
                    (row[0] as String? ?? "", (1..<row.count).map { row[$0] as Int? ?? 0 })
                }
            }
        } catch let error as DatabaseError {
            throw StoreError(.readFailed, "\(what): \(error)")
        }
    }

    private func conflictsNow(limit: Int) throws -> [ConflictSummary] {
        do {
            return try database.read { db in
                try Row.fetchAll(db, sql: ConflictSummary.statement(limit: "?"), arguments: [limit]).map { row in
                    ConflictSummary(values: (0..<row.count).map { ColumnValue(row[$0] as DatabaseValue) })
                }
            }
        } catch let error as DatabaseError {
            throw StoreError(.readFailed, "cannot read the conflicts: \(error)")
        }
    }

    private func checksNow(from: String?, to: String?) throws -> [PostbackChecks] {
        try countsByNetwork(PostbackChecks.statement(from: from, to: to) { _ in "?" }, "cannot check the postbacks")
            .map(PostbackChecks.init(network:counts:)).sorted { $0.network < $1.network }
    }

    public func latestRefusals(limit: Int) async throws -> [RefusalSummary] { try refusalsNow(limit: limit) }

    private func statsNow() throws -> StoreStats {
        do {
            return try database.read { db in
                StoreStats(counters: try Row.fetchAll(db, sql: "SELECT name, value FROM counters")
                    .map { (name: $0[0] as String, value: $0[1] as Int) })
            }
        } catch let error as DatabaseError {
            throw StoreError(.readFailed, "cannot count postbacks: \(error)")
        }
    }

    private func refusalsNow(limit: Int) throws -> [RefusalSummary] {
        do {
            return try database.read { db in
                try Row.fetchAll(db, sql: RefusalSummary.statement(limit: "?"), arguments: [limit]).map { row in
                    RefusalSummary(receivedAt: row[0], status: row[1], field: row[2], reason: row[3], endpoint: row[4])
                }
            }
        } catch let error as DatabaseError {
            throw StoreError(.readFailed, "cannot read the refusals: \(error)")
        }
    }

    private func aggregateNow(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) throws {
        let (sql, arguments) = Self.statement(for: query)
        let keyCount = query.dimensions.count
        let base = keyCount + (query.splitsByValue ? 2 : 0)
        do {
            try database.read { db in
                let cursor = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
                while let row = try cursor.next() {
                    try each(AggregateRow(
                        keys: (0..<keyCount).map { Self.text(row[$0]) },
                        conversionValue: query.splitsByValue ? row[keyCount] : nil,
                        coarseValue: query.splitsByValue ? row[keyCount + 1] : nil,
                        postbacks: row[base], installs: row[base + 1], redownloads: row[base + 2],
                        reengagements: row[base + 3], nonWinning: row[base + 4], nullValues: row[base + 5]))
                }
            }
        } catch let error as DatabaseError {
            throw StoreError(.readFailed, "the report query failed: \(error)")
        }
    }

    private func exportNow(_ table: ExportTable, sql: String? = nil, arguments: StatementArguments = StatementArguments(),
                           header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) throws {
        do {
            try database.read { db in
                // The columns come from the file: a refusal table has no description of its own, and a
                // postbacks table of this release has exactly ``PostbackTable/exportColumns`` (a test checks).
                let columns = try db.columns(in: table.rawValue).map(\.name)
                try header(columns)
                let statement = try db.makeStatement(sql: sql ?? "SELECT * FROM \(table.rawValue) ORDER BY id")
                let cursor = try Row.fetchCursor(statement, arguments: arguments)
                // GRDB prepares, steps and finalizes the statement; the values of the current row are read straight
                // from it, because decoding each through GRDB's generic path cost more than the query itself.
                let raw = statement.sqliteStatement
                let row = ExportRow(count: columns.count) { index in Self.value(column: Int32(index), of: raw) }
                while try cursor.next() != nil {
                    try each(row)
                }
            }
        } catch let error as DatabaseError {
            throw StoreError(.readFailed, "the export failed: \(error)")
        }
    }

    /// One column of the statement's current row; text and blobs point into SQLite's buffer for that row.
    static func value(column: Int32, of statement: OpaquePointer) -> ExportValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, column))
        case SQLITE_BLOB:
            let length = Int(sqlite3_column_bytes(statement, column))
            guard length > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob(UnsafeBufferPointer(start: nil, count: 0)) }
            return .blob(UnsafeBufferPointer(start: bytes.assumingMemoryBound(to: UInt8.self), count: length))
        default:
            guard let text = sqlite3_column_text(statement, column) else { return .text(UnsafeBufferPointer(start: nil, count: 0)) }
            return .text(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, column))))
        }
    }

    static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: nil
        case .int64(let number): String(number)
        case .double(let number): String(number)
        case .string(let string): string
        case .blob(let data): String(decoding: data, as: UTF8.self)
        }
    }
}
