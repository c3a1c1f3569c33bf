import Foundation
import SKANStore

/// What `--db` names, with the engine that claims it (``Engines/all``): every command opens its store, its reader
/// and its web-ad store here, and words the engines' failures as the command line's own.
struct StoreLocation {
    /// The engine that claimed the location.
    let engine: any StorageEngine
    /// The location as given (a URL's password included: it is kept for the connection and never shown).
    let text: String
    /// The location as messages show it: the path, or the URL without its password.
    let display: String

    /// Reads `--db`: the first engine of `engines` that claims it.
    init(_ text: String, engines: [any StorageEngine] = Engines.all) throws(CLIError) {
        guard let engine = engines.first(where: { $0.claims(text) }) else {
            throw CLIError("--db: no storage engine reads \(text)")
        }
        self.engine = engine
        self.text = text
        do {
            display = try engine.display(text)
        } catch {
            throw CLIError("--db: \(error.reason)")
        }
    }

    /// Files no output may be written over: the database's files; none for a server.
    var protectedFiles: [String] { engine.protectedFiles(text) }

    /// Whether the database is a file on this machine (and not on a server).
    var isFile: Bool { !protectedFiles.isEmpty }

    /// The store, its schema not yet touched: `serve` migrates it before its port opens, `ingest` before reading.
    func openStore(_ options: StoreOptions = StoreOptions()) throws(CLIError) -> any PostbackStore {
        do {
            return try engine.openStore(text, options: options)
        } catch {
            throw CLIError(error.reason)
        }
    }

    /// The store of registered web ads (`skan signer --db`), its schema not yet touched.
    func openWebAdStore() throws(CLIError) -> any WebAdStore {
        do {
            return try engine.openWebAdStore(text)
        } catch {
            throw CLIError(error.reason)
        }
    }

    /// The campaign map (`skan campaigns`, and what `skan report` names campaigns with), its schema not yet touched.
    func openCampaignMapStore() throws(CLIError) -> any CampaignMapStore {
        do {
            return try engine.openCampaignMapStore(text)
        } catch {
            throw CLIError("--db: \(error.reason)")
        }
    }

    /// Runs `body` with the campaign map open and hosted (``StoreHost``), and lets go of it however `body` ends; the
    /// store's failures read as `--db` lines.
    func withCampaignMapStore<Result: Sendable>(_ body: (any CampaignMapStore) async throws -> Result) async throws -> Result {
        let store = try openCampaignMapStore()
        return try await StoreHost.running([store]) {
            try await Self.closing(store, body)
        }
    }

    private static func closing<Result: Sendable>(_ store: any CampaignMapStore,
                                                  _ body: (any CampaignMapStore) async throws -> Result) async throws -> Result {
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch let error as StoreError {
            await store.close()
            throw CLIError("--db: \(error.reason)")
        } catch {
            await store.close()
            throw error
        }
    }

    /// The read side, for reports and exports.
    func openReader() async throws(CLIError) -> any PostbackReader {
        do {
            return try await engine.openReader(text)
        } catch where error.code == .notCollectorDatabase {
            throw CLIError("--db: \(error.reason); point --db at the \(isFile ? "file" : "database") `skan serve` or `skan ingest` wrote")
        } catch {
            throw CLIError("--db: \(error.reason)")
        }
    }

    /// Runs `body` with the read side open and hosted (``StoreHost``), and lets go of it however `body` ends.
    func withReader(_ body: (any PostbackReader) async throws -> Void) async throws {
        let reader = try await openReader()
        try await StoreHost.running([reader]) {
            do {
                try await body(reader)
            } catch {
                await reader.close()
                throw error
            }
            await reader.close()
        }
    }

    /// The statement a report runs on this engine, with its arguments (`skan report --print-sql`).
    func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) {
        engine.statement(for: query)
    }
}
