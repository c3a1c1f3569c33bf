import Foundation
import SKANReports
import SKANStore
import SKANStoreSQLite
import SKANStorePostgres

/// What `--db` names: a SQLite file, or a PostgreSQL database as a `postgres://` or `postgresql://` URL. The one
/// place the command line tells the engines apart; every command opens its store and its reader here.
enum StoreLocation {
    case sqlite(path: String)
    case postgres(PostgresStoreConfiguration)

    /// Reads `--db`. A URL's password (or `PGPASSWORD`) is kept for the connection and never shown.
    init(_ text: String) throws(CLIError) {
        guard PostgresStoreConfiguration.isURL(text) else {
            self = .sqlite(path: text)
            return
        }
        do {
            self = .postgres(try PostgresStoreConfiguration(url: text))
        } catch {
            throw CLIError("--db: \(error.reason)")
        }
    }

    /// The location as messages show it: the path, or the URL without its password.
    var display: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let configuration): configuration.redacted
        }
    }

    /// Files no output may be written over: SQLite's database files; none for a server.
    var protectedFiles: [String] {
        switch self {
        case .sqlite(let path): ReportBuilder.databaseFiles(path)
        case .postgres: []
        }
    }

    /// The store, its schema not yet touched: `serve` migrates it before its port opens, `ingest` before reading.
    func openStore(durability: SQLiteDurability = .full, rejectionCap: RejectionCap = RejectionCap())
        throws(CLIError) -> any PostbackStore {
        switch self {
        case .sqlite(let path):
            do {
                return try SQLitePostbackStore(path: path, durability: durability, rejectionCap: rejectionCap)
            } catch {
                throw CLIError(error.reason)
            }
        case .postgres(let configuration):
            // PostgreSQL commits durably by its own settings (synchronous_commit); --durability is SQLite's.
            return PostgresPostbackStore(configuration, rejectionCap: rejectionCap)
        }
    }

    /// The store of registered web ads (`skan signer --db`), its schema not yet touched.
    func openWebAdStore() throws(CLIError) -> any WebAdStore {
        switch self {
        case .sqlite(let path):
            do {
                return try SQLiteWebAdStore(path: path)
            } catch {
                throw CLIError(error.reason)
            }
        case .postgres(let configuration):
            return PostgresWebAdStore(configuration)
        }
    }

    /// The read side, for reports and exports.
    func openReader() async throws(CLIError) -> any PostbackReader {
        switch self {
        case .sqlite(let path):
            do {
                return try ReportBuilder.open(path)
            } catch {
                throw CLIError(error.reason)
            }
        case .postgres(let configuration):
            do {
                return try await PostgresPostbackReader.open(configuration)
            } catch where error.code == .notCollectorDatabase {
                throw CLIError("--db: \(error.reason); point --db at the database `skan serve` or `skan ingest` wrote")
            } catch {
                throw CLIError("--db: \(error.reason)")
            }
        }
    }

    /// Runs `body` with the read side open, and lets go of it however `body` ends.
    func withReader(_ body: (any PostbackReader) async throws -> Void) async throws {
        let reader = try await openReader()
        do {
            try await body(reader)
        } catch {
            await reader.close()
            throw error
        }
        await reader.close()
    }

    /// The statement a report runs on this engine, with its arguments (`skan report --print-sql`).
    func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) {
        switch self {
        case .sqlite: SQLitePostbackReader.statement(for: query)
        case .postgres: PostgresPostbackReader.statement(for: query)
        }
    }
}
