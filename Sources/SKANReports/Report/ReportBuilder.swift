import Foundation
import GRDB
import SKANCore

/// Builds reports from the collector's SQLite database.
///
/// The grouping and counting run inside SQLite as one `GROUP BY` query, so a report costs what the same query
/// costs in the `sqlite3` shell; Swift only decodes values through the schema and formats the rows.
public enum ReportBuilder {
    /// Opens the database read-only, so that a report can run beside a live collector.
    public static func open(_ path: String) throws(ReportError) -> DatabaseQueue {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ReportError(.database, "--db: no database at \(path)")
        }
        var configuration = Configuration()
        configuration.readonly = true
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            // A table named postbacks is not enough: another program's database may have one with other
            // columns. The collector records each schema step it ran; its first step made the table.
            let isCollectorDatabase = try queue.read { db in
                try db.tableExists("grdb_migrations")
                    && Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = ?)",
                                     arguments: [Self.firstSchemaStep]) == true
                    && db.tableExists("postbacks")
            }
            guard isCollectorDatabase else {
                throw ReportError(.database, "--db: \(path) is not a SKANKit collector database (no postbacks table "
                                  + "made by the collector's schema); point --db at the file `skan serve` or `skan ingest` wrote")
            }
            return queue
        } catch let error as ReportError {
            throw error
        } catch {
            throw ReportError(.database, "--db: cannot read \(path): \(error)")
        }
    }

    /// The collector's first schema migration, the one that creates `postbacks` (SKANStore's `SQLiteSchema`).
    static let firstSchemaStep = "0001-postbacks"

    /// The files SQLite keeps for the database at `path`: the database, its write-ahead log, its shared memory
    /// and its rollback journal. No output may be written over any of them.
    public static func databaseFiles(_ path: String) -> [String] {
        ["", "-wal", "-shm", "-journal"].map { path + $0 }
    }

    /// The one query a report runs, with its `?` arguments: what `skan report --print-sql` shows, so that the
    /// numbers can be checked in any SQLite tool.
    public static func query(for request: ReportRequest) -> (sql: String, arguments: [String]) {
        var select = request.fields.map { $0.sql(day: request.day) }
        if request.schema != nil { select += ["conversion_value", "coarse_conversion_value"] }
        let groups = select.isEmpty ? "" : "GROUP BY " + (1...select.count).map(String.init).joined(separator: ", ")
        let order = request.fields.isEmpty ? "" : "ORDER BY " + (1...request.fields.count).map(String.init).joined(separator: ", ")
        var conditions: [String] = []
        var arguments: [String] = []
        let day = ReportField.day.sql(day: request.day)
        if let from = request.from { conditions.append("\(day) >= ?"); arguments.append(from) }
        if let to = request.to { conditions.append("\(day) <= ?"); arguments.append(to) }
        let sql = """
            SELECT \((select + Self.counts).joined(separator: ", "))
            FROM postbacks\(conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            \(groups) \(order)
            """
        return (sql, arguments)
    }

    /// Runs a report and keeps every row (for small reports, tables and tests).
    public static func run(_ request: ReportRequest, on database: DatabaseQueue) throws(ReportError) -> Report {
        var rows: [ReportRow] = []
        try stream(request, on: database) { rows.append($0) }
        return Report(request: request, rows: rows, eventNames: request.schema?.eventNames ?? [])
    }

    /// Runs a report and hands over each row as SQLite produces it, in key order, so that memory stays flat
    /// however many groups there are.
    public static func stream(_ request: ReportRequest, on database: DatabaseQueue,
                              each: (ReportRow) throws -> Void) throws(ReportError) {
        let (sql, arguments) = query(for: request)
        let keyCount = request.fields.count
        let base = keyCount + (request.schema != nil ? 2 : 0)
        var pending: ReportRow?
        do {
            try database.read { db in
                let cursor = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
                while let row = try cursor.next() {
                    var counts = ReportRow(keys: (0..<keyCount).map { Self.text(row[$0]) })
                    counts.postbacks = row[base]
                    counts.installs = row[base + 1]
                    counts.redownloads = row[base + 2]
                    counts.nonWinning = row[base + 3]
                    counts.nullValues = row[base + 4]
                    guard let schema = request.schema else {
                        try each(counts)
                        continue
                    }
                    let fine: Int? = row[keyCount]
                    let coarseText: String? = row[keyCount + 1]
                    for event in schema.events(conversionValue: fine, coarseValue: coarseText.flatMap(CoarseValue.init(rawValue:))) {
                        counts.events[event.name, default: 0] += event.count * counts.postbacks
                        counts.revenueLow += event.revenueLow * Double(counts.postbacks)
                        counts.revenueHigh += event.revenueHigh * Double(counts.postbacks)
                    }
                    // With a schema the query also splits groups by value; rows of one group are adjacent
                    // (ordered by the keys), so they fold back into one as they come.
                    if let last = pending, last.keys == counts.keys {
                        pending = Self.merge(last, counts)
                    } else {
                        if let last = pending { try each(last) }
                        pending = counts
                    }
                }
                if let last = pending { try each(last) }
            }
        } catch let error as ReportError {
            throw error
        } catch {
            throw ReportError(.database, "the report query failed: \(error)")
        }
    }

    /// Counts as integers (`SUM` of 0/1; `COALESCE` because `SUM` over no rows is NULL).
    static let counts = [
        "COUNT(*)",
        "COALESCE(SUM(COALESCE(did_win, 1) = 1 AND COALESCE(postback_sequence_index, 0) = 0), 0)",
        "COALESCE(SUM(COALESCE(did_win, 1) = 1 AND COALESCE(postback_sequence_index, 0) = 0 AND redownload = 1), 0)",
        "COALESCE(SUM(did_win = 0), 0)",
        "COALESCE(SUM(conversion_value IS NULL AND coarse_conversion_value IS NULL), 0)",
    ]

    static func merge(_ a: ReportRow, _ b: ReportRow) -> ReportRow {
        var merged = a
        merged.postbacks += b.postbacks
        merged.installs += b.installs
        merged.redownloads += b.redownloads
        merged.nonWinning += b.nonWinning
        merged.nullValues += b.nullValues
        merged.events.merge(b.events, uniquingKeysWith: +)
        merged.revenueLow += b.revenueLow
        merged.revenueHigh += b.revenueHigh
        return merged
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
