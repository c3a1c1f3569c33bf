import Logging
import NIOCore
import PostgresNIO
import SKANStore

/// The read side of a PostgreSQL store: reports and exports, streamed through postgres-nio's back-pressured
/// row sequence, so memory stays flat however many rows there are.
public final class PostgresPostbackReader: PostbackReader {
    /// Where the store is, without its password.
    public let location: String
    private let pool: PostgresPool
    /// Whether the database has every ``PostbackRollup`` table (a database no collector of this release has migrated yet
    /// lacks some): without them every aggregate reads the postbacks.
    private let hasRollups: Bool

    private init(location: String, pool: PostgresPool, hasRollups: Bool) {
        self.location = location
        self.pool = pool
        self.hasRollups = hasRollups
    }

    /// Opens the collector's database `configuration` names for reading; refuses one without the collector's
    /// tables. The check runs on a pool of its own, hosted here; the reader's pool waits for the reader's host
    /// (``run()``).
    public static func open(_ configuration: PostgresStoreConfiguration,
                            logger: Logger = Logger(label: "skan.reader.postgres")) async throws(StoreError) -> PostgresPostbackReader {
        let location = configuration.redacted
        let (made, hasRollups) = try await PostgresPool.hosted(configuration, logger: logger) { pool throws(StoreError) in
            try await pool.run(.cannotOpen, "cannot read \(location)") { client in
                let rows = try await client.query("""
                    SELECT to_regclass('skan_migrations') IS NOT NULL AND to_regclass(\(PostbackTable.name)) IS NOT NULL,
                        (SELECT bool_and(to_regclass(name) IS NOT NULL) FROM unnest(\(PostbackRollup.all.map(\.name))::text[]) AS name)
                    """, logger: logger)
                var made = (false, false)
                for try await value in rows.decode((Bool, Bool).self) { made = value }
                return made
            }
        }
        guard made else {
            throw StoreError(.notCollectorDatabase, "\(location) is not a SKANKit collector database (no "
                             + "postbacks table made by the collector's migrations)")
        }
        return PostgresPostbackReader(location: location, pool: PostgresPool(configuration, logger: logger), hasRollups: hasRollups)
    }

    /// The statement an aggregate runs on PostgreSQL, without a database (`skan report --print-sql`).
    public static func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) {
        PostgresAggregateSQL.statement(for: query)
    }

    public func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) {
        var query = query
        if !hasRollups { query.allowsRollups = false }
        return Self.statement(for: query)
    }

    public func aggregate(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) async throws {
        let (sql, arguments) = statement(for: query)
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments { binds.append(argument) }
        let rows = try await stream(PostgresQuery(unsafeSQL: sql, binds: binds), "the report query failed")
        let keyCount = query.dimensions.count
        let base = keyCount + (query.splitsByValue ? 2 : 0)
        do {
            for try await row in rows {
                let cells = row.makeRandomAccess()
                func count(_ offset: Int) -> Int { Int(Self.integer(cells[base + offset]) ?? 0) }
                try each(AggregateRow(
                    keys: (0..<keyCount).map { Self.text(cells[$0]) },
                    conversionValue: query.splitsByValue ? Self.integer(cells[keyCount]).map(Int.init) : nil,
                    coarseValue: query.splitsByValue ? Self.text(cells[keyCount + 1]) : nil,
                    postbacks: count(0), installs: count(1), redownloads: count(2), reengagements: count(3),
                    nonWinning: count(4), nullValues: count(5)))
            }
        } catch let error as PSQLError {
            throw StoreError(.readFailed, "the report query failed: \(PostgresPool.describe(error))")
        }
    }

    public func export(_ table: ExportTable, header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) async throws {
        try await export(table, PostgresQuery(unsafeSQL: "SELECT * FROM \(table.rawValue) ORDER BY id"), header: header, each: each)
    }

    public func export(_ table: ExportTable, page: ExportPage, header: ([String]) throws -> Void,
                       each: (ExportRow) throws -> Void) async throws {
        var binds = PostgresBindings(capacity: 4)
        binds.append(page.after)
        if let from = page.from { binds.append(from) }
        if let to = page.to { binds.append(to) }
        binds.append(Int64(max(page.limit, 0)))
        try await export(table, PostgresQuery(unsafeSQL: page.statement(table) { "$\($0)" }, binds: binds),
                         header: header, each: each)
    }

    /// Hands over the rows `query` (a `SELECT *` of `table`) streams, after the table's column names.
    private func export(_ table: ExportTable, _ query: PostgresQuery, header: ([String]) throws -> Void,
                        each: (ExportRow) throws -> Void) async throws {
        let columns = try await columns(of: table)
        try header(columns)
        let rows = try await stream(query, "the export failed")
        var scratch = ExportScratch(columns: columns.count)
        do {
            for try await row in rows {
                scratch.load(row)
                try scratch.withRow(each)
            }
        } catch let error as PSQLError {
            throw StoreError(.readFailed, "the export failed: \(PostgresPool.describe(error))")
        }
    }

    /// Runs the pool's connections and calls until the store closes: its host's to run (``HostedStore``).
    public func run() async {
        await pool.run()
    }

    /// The columns of `table`, from the catalogue, as SQLite's export takes them from the file.
    private func columns(of table: ExportTable) async throws(StoreError) -> [String] {
        let logger = pool.logger
        let name = table.rawValue
        return try await pool.run(.readFailed, "the export failed") { client in
            var names: [String] = []
            let rows = try await client.query("""
                SELECT column_name::text FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = \(name) ORDER BY ordinal_position
                """, logger: logger)
            for try await column in rows.decode(String.self) { names.append(column) }
            return names
        }
    }

    public func outboxDepths() async throws -> [OutboxDepth] {
        try await PostgresOutbox.depths(pool)
    }

    public func deadLetters(limit: Int) async throws -> [DeadLetter] {
        try await PostgresOutbox.deadLetters(pool, limit: limit)
    }

    /// Lets go of the pool's connections.
    public func close() async {
        await pool.close()
    }

    /// Starts `query` within the pool's deadline (a server that is down fails here, promptly); its rows then
    /// stream as the caller takes them.
    public func stats() async throws -> StoreStats {
        try await pool.stats()
    }

    public func checks(from: String?, to: String?) async throws -> [PostbackChecks] {
        try await countsByNetwork(PostbackChecks.statement(from: from, to: to) { "$\($0)" }, "cannot check the postbacks")
            .map(PostbackChecks.init(network:counts:)).sorted { $0.network < $1.network }
    }

    public func repeatCounts(from: String?, to: String?) async throws -> [RepeatCounts] {
        try await countsByNetwork(RepeatCounts.statement(from: from, to: to) { "$\($0)" }, "cannot count the repeats")
            .map(RepeatCounts.init(network:counts:))
    }

    /// The rows of a statement of a network and counts (``PostbackChecks``, ``RepeatCounts``), failing as `what`.
    private func countsByNetwork(_ statement: (sql: String, arguments: [String]), _ what: String) async throws
        -> [(network: String, counts: [Int])] {
        var binds = PostgresBindings(capacity: statement.arguments.count)
        for argument in statement.arguments { binds.append(argument) }
        let rows = try await stream(PostgresQuery(unsafeSQL: statement.sql, binds: binds), what)
        var networks: [(network: String, counts: [Int])] = []
        do {
            for try await row in rows {
                let cells = row.makeRandomAccess()
                var counts: [Int] = []
                for index in 1..<cells.count { counts.append(Int(Self.integer(cells[index]) ?? 0)) }
                networks.append((Self.text(cells[0]) ?? "", counts))
            }
        } catch let error as PSQLError {
            throw StoreError(.readFailed, "\(what): \(PostgresPool.describe(error))")
        }
        return networks
    }

    public func latestConflicts(limit: Int) async throws -> [ConflictSummary] {
        var binds = PostgresBindings(capacity: 1)
        binds.append(limit)
        let rows = try await stream(PostgresQuery(unsafeSQL: ConflictSummary.statement(limit: "$1"), binds: binds),
                                    "cannot read the conflicts")
        var conflicts: [ConflictSummary] = []
        do {
            for try await row in rows {
                let cells = row.makeRandomAccess()
                var values: [ColumnValue] = []
                for (index, column) in ConflictSummary.columns.enumerated() {
                    values.append(PostgresCells.value(cells[index], kind: column.kind))
                }
                conflicts.append(ConflictSummary(values: values))
            }
        } catch let error as PSQLError {
            throw StoreError(.readFailed, "cannot read the conflicts: \(PostgresPool.describe(error))")
        }
        return conflicts
    }

    public func latestRefusals(limit: Int) async throws -> [RefusalSummary] {
        var binds = PostgresBindings(capacity: 1)
        binds.append(limit)
        let rows = try await stream(PostgresQuery(unsafeSQL: RefusalSummary.statement(limit: "$1"), binds: binds),
                                    "cannot read the refusals")
        var summaries: [RefusalSummary] = []
        do {
            for try await (at, status, field, reason, endpoint) in rows.decode((String, String, String?, String, String).self) {
                summaries.append(RefusalSummary(receivedAt: at, status: status, field: field, reason: reason, endpoint: endpoint))
            }
        } catch {
            throw StoreError(.readFailed, "cannot read the refusals: \(String(reflecting: error))")
        }
        return summaries
    }

    private func stream(_ query: PostgresQuery, _ what: String) async throws(StoreError) -> PostgresRowSequence {
        let logger = pool.logger
        return try await pool.run(.readFailed, what, seconds: 30) { client in try await client.query(query, logger: logger) }
    }

    /// A key as text: numbers in decimal, as SQLite gives them.
    static func text(_ cell: PostgresCell) -> String? {
        guard cell.bytes != nil else { return nil }
        if let number = integer(cell) { return String(number) }
        return try? cell.decode(String.self)
    }

    /// An integer cell's value; `nil` for NULL or another type.
    static func integer(_ cell: PostgresCell) -> Int64? {
        switch cell.dataType {
        case .int2: (try? cell.decode(Int16.self)).map(Int64.init)
        case .int4: (try? cell.decode(Int32.self)).map(Int64.init)
        case .int8: try? cell.decode(Int64.self)
        default: nil
        }
    }
}
