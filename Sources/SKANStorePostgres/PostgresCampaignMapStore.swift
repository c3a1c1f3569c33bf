import Foundation
import Logging
import PostgresNIO
import SKANCore
import SKANStore

/// The campaign map in PostgreSQL (`campaign_map` and `campaign_map_imports`, migration 0009), so that every
/// collector, report and dashboard of a fleet reads the map one import wrote.
public final class PostgresCampaignMapStore: CampaignMapStore {
    /// Where the store is, without its password.
    public let location: String
    private let pool: PostgresPool

    /// The tables, as migration 0009 makes them: the SQLite engine's, in PostgreSQL's types.
    static let schema = [
        """
        CREATE TABLE \(CampaignMapTable.name) (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            ad_network_id text NOT NULL,
            source_identifier text,
            campaign_id bigint,
            valid_from text,
            valid_to text,
            campaign text NOT NULL,
            ad_set text,
            creative text,
            country text,
            origin text NOT NULL,
            CHECK ((source_identifier IS NULL) <> (campaign_id IS NULL))
        )
        """,
        "CREATE INDEX \(CampaignMapTable.name)_network ON \(CampaignMapTable.name) (ad_network_id)",
        """
        CREATE TABLE \(CampaignMapTable.imports) (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            imported_at text NOT NULL,
            source text NOT NULL,
            networks text NOT NULL,
            row_count bigint NOT NULL
        )
        """,
    ]

    /// A store on the database `configuration` names; call ``migrate()`` before an import.
    public init(_ configuration: PostgresStoreConfiguration, logger: Logger = Logger(label: "skan.campaigns.postgres")) {
        location = configuration.redacted
        pool = PostgresPool(configuration, logger: logger)
    }

    public func migrate() async throws(StoreError) {
        try await PostgresSchema.migrate(pool, location: location)
    }

    public func replace(_ imported: CampaignMapImport) async throws(StoreError) -> CampaignMapImport.Outcome {
        let logger = pool.logger
        let networks = imported.networks
        let rows = imported.entries.map(CampaignMapTable.cells)
        let record = (Timestamp.iso8601(imported.importedAt), imported.source, networks.joined(separator: ","),
                      imported.entries.count)
        // One transaction: a reader sees the networks' map before the import or after it, never half of it.
        return try await pool.run(.writeFailed, "cannot import the campaign map from \(imported.source)",
                                  seconds: 60) { client in
            try await client.withTransaction(logger: logger) { connection in
                var removed = 0
                for network in networks {
                    let gone = try await connection.query("""
                        WITH gone AS (DELETE FROM campaign_map WHERE ad_network_id = \(network) RETURNING 1)
                        SELECT count(*)::bigint FROM gone
                        """, logger: logger)
                    for try await count in gone.decode(Int.self) { removed += count }
                }
                for cells in rows {
                    let campaignID = cells[2].flatMap { Int($0) }
                    try await connection.query("""
                        INSERT INTO campaign_map (ad_network_id, source_identifier, campaign_id, valid_from, valid_to,
                                                  campaign, ad_set, creative, country, origin)
                        VALUES (\(cells[0]), \(cells[1]), \(campaignID), \(cells[3]), \(cells[4]), \(cells[5]),
                                \(cells[6]), \(cells[7]), \(cells[8]), \(cells[9]))
                        """, logger: logger)
                }
                try await connection.query("""
                    INSERT INTO campaign_map_imports (imported_at, source, networks, row_count)
                    VALUES (\(record.0), \(record.1), \(record.2), \(record.3))
                    """, logger: logger)
                return CampaignMapImport.Outcome(added: rows.count, removed: removed)
            }
        }
    }

    /// Empty on a database made before migration 0009 (a report reads without migrating).
    public func entries() async throws(StoreError) -> [CampaignMap.Entry] {
        let logger = pool.logger
        let rows = try await pool.run(.readFailed, "cannot read the campaign map", seconds: 30) { client -> [[String?]] in
            guard try await Self.exists(CampaignMapTable.name, client, logger) else { return [] }
            let found = try await client.query("""
                SELECT ad_network_id, source_identifier, campaign_id::text, valid_from, valid_to, campaign, ad_set,
                       creative, country, origin FROM campaign_map
                """, logger: logger)
            var rows: [[String?]] = []
            for try await row in found.decode((String, String?, String?, String?, String?, String, String?, String?,
                                              String?, String).self) {
                rows.append([row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9])
            }
            return rows
        }
        return CampaignMapTable.sorted(rows.compactMap(CampaignMapTable.entry))
    }

    public func imports() async throws(StoreError) -> [CampaignMapImport.Record] {
        let logger = pool.logger
        return try await pool.run(.readFailed, "cannot read the campaign map's imports") { client in
            guard try await Self.exists(CampaignMapTable.imports, client, logger) else { return [] }
            let found = try await client.query(
                "SELECT imported_at, source, networks, row_count FROM campaign_map_imports ORDER BY id", logger: logger)
            var records: [CampaignMapImport.Record] = []
            for try await (at, source, networks, count) in found.decode((String, String, String, Int).self) {
                records.append(CampaignMapImport.Record(importedAt: at, source: source, networks: networks, rows: count))
            }
            return records
        }
    }

    /// Runs the pool's connections and calls until the store closes: its host's to run (``HostedStore``).
    public func run() async {
        await pool.run()
    }

    public func close() async {
        await pool.close()
    }

    /// Whether `table` exists in the search path.
    private static func exists(_ table: String, _ client: PostgresClient, _ logger: Logger) async throws -> Bool {
        var found = false
        for try await exists in try await client.query("SELECT to_regclass(\(table)::text) IS NOT NULL", logger: logger)
            .decode(Bool.self) {
            found = exists
        }
        return found
    }
}
