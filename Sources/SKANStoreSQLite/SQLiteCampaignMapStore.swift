import Foundation
import GRDB
import SKANCore
import SKANStore

/// The campaign map in the SQLite store (`campaign_map` and `campaign_map_imports`, migration 0011): the same file
/// the collector writes, in WAL mode, so an import can run beside a live collector.
public final class SQLiteCampaignMapStore: CampaignMapStore {
    /// One read-write connection, not a pool: the map is read once per report or page, and the last connection to
    /// close deletes the `-wal` and `-shm` files (a pool's read-only readers cannot, and left them behind).
    private let database: DatabaseQueue
    private let path: String

    /// The tables, as migration 0011 makes them. The campaign id is an integer, every other value text; the
    /// checks are the file's rules, so that a row written by hand cannot break a report.
    static let schema = """
        CREATE TABLE \(CampaignMapTable.name) (
            id INTEGER PRIMARY KEY,
            ad_network_id TEXT NOT NULL,
            source_identifier TEXT,
            campaign_id INTEGER,
            valid_from TEXT,
            valid_to TEXT,
            campaign TEXT NOT NULL,
            ad_set TEXT,
            creative TEXT,
            country TEXT,
            origin TEXT NOT NULL,
            CHECK ((source_identifier IS NULL) <> (campaign_id IS NULL))
        );
        CREATE INDEX \(CampaignMapTable.name)_network ON \(CampaignMapTable.name) (ad_network_id);
        CREATE TABLE \(CampaignMapTable.imports) (
            id INTEGER PRIMARY KEY,
            imported_at TEXT NOT NULL,
            source TEXT NOT NULL,
            networks TEXT NOT NULL,
            row_count INTEGER NOT NULL
        );
        """

    /// Opens (or creates) the database at `path`; call ``migrate()`` before an import.
    public init(path: String) throws(StoreError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        self.path = path
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError(.cannotOpen, "cannot open the database \(path): \(error)")
        }
    }

    public func migrate() async throws(StoreError) {
        do { try SQLiteSchema.migrate(database, path: path) } catch {
            throw StoreError(.migrationFailed, "cannot bring the schema up to date: \(error)")
        }
    }

    public func replace(_ imported: CampaignMapImport) async throws(StoreError) -> CampaignMapImport.Outcome {
        try replaceNow(imported)
    }

    public func entries() async throws(StoreError) -> [CampaignMap.Entry] { try entriesNow() }
    public func imports() async throws(StoreError) -> [CampaignMapImport.Record] { try importsNow() }

    public func close() async {
        try? database.close()
    }

    // Synchronous, as the web-ad store's: SQLite is a file, and GRDB's async writes would need Sendable closures.

    private func replaceNow(_ imported: CampaignMapImport) throws(StoreError) -> CampaignMapImport.Outcome {
        let networks = imported.networks
        let insert = "INSERT INTO \(CampaignMapTable.name) (\(CampaignMapTable.columns.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: CampaignMapTable.columns.count).joined(separator: ", ") + ")"
        do {
            return try database.write { db in
                var removed = 0
                for network in networks {
                    try db.execute(sql: "DELETE FROM \(CampaignMapTable.name) WHERE ad_network_id = ?", arguments: [network])
                    removed += db.changesCount
                }
                let statement = try db.makeStatement(sql: insert)
                for entry in imported.entries {
                    try statement.execute(arguments: StatementArguments(
                        CampaignMapTable.cells(entry).map(\.databaseValue)))
                }
                try db.execute(sql: """
                    INSERT INTO \(CampaignMapTable.imports) (\(CampaignMapTable.importColumns.joined(separator: ", ")))
                        VALUES (?, ?, ?, ?)
                    """, arguments: [Timestamp.iso8601(imported.importedAt), imported.source,
                                     networks.joined(separator: ","), imported.entries.count])
                return CampaignMapImport.Outcome(added: imported.entries.count, removed: removed)
            }
        } catch {
            throw StoreError(.writeFailed, "cannot import the campaign map from \(imported.source): \(error)")
        }
    }

    /// Empty on a database made before migration 0011 (a report reads without migrating).
    private func entriesNow() throws(StoreError) -> [CampaignMap.Entry] {
        do {
            let rows = try database.read { db -> [[String?]] in
                guard try db.tableExists(CampaignMapTable.name) else { return [] }
                let columns = CampaignMapTable.columns.map { $0 == "campaign_id" ? "CAST(campaign_id AS TEXT)" : $0 }
                return try Row.fetchAll(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(CampaignMapTable.name)")
                    .map { row in (0..<CampaignMapTable.columns.count).map { row[$0] as String? } }
            }
            return CampaignMapTable.sorted(rows.compactMap(CampaignMapTable.entry))
        } catch {
            throw StoreError(.readFailed, "cannot read the campaign map: \(error)")
        }
    }

    private func importsNow() throws(StoreError) -> [CampaignMapImport.Record] {
        do {
            return try database.read { db in
                guard try db.tableExists(CampaignMapTable.imports) else { return [] }
                return try Row.fetchAll(db, sql: """
                    SELECT \(CampaignMapTable.importColumns.joined(separator: ", ")) FROM \(CampaignMapTable.imports) ORDER BY id
                    """).map { row in
                    CampaignMapImport.Record(importedAt: row[0], source: row[1], networks: row[2], rows: row[3])
                }
            }
        } catch {
            throw StoreError(.readFailed, "cannot read the campaign map's imports: \(error)")
        }
    }

}
