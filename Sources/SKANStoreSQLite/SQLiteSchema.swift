import Foundation
import GRDB
import SKANStore

/// The schema as numbered migrations. GRDB records which ones ran in `grdb_migrations`, so a later release adds
/// `0003-…` and every existing database moves forward on its next start.
enum SQLiteSchema {
    /// The first migration, the one that creates `postbacks`: its record marks a collector's database.
    static let firstStep = "0001-postbacks"

    /// Whether every migration ran on `db`. Only ``migrate(_:path:)`` runs them: migration 0013 needs the rollups file.
    static func isCurrent(_ db: Database) throws -> Bool {
        try migrator(rollups: nil).hasCompletedMigrations(db)
    }

    /// Brings the database `database` (at `path`, or in memory) up to date: the rollups file's schema first (a file's
    /// migration 0013 moves its rollups there), then the database's migrations.
    static func migrate(_ database: any DatabaseWriter, path: String?) throws {
        if let path {
            let folder = try SQLiteRollupFolder(databasePath: path, folding: .default)
            defer { try? folder.close(foldingTheRest: false) }
            try migrate(database, folder: folder)
        } else {
            try migrator(rollups: nil).migrate(database)
            try SQLiteRollupSchema.migrator.migrate(database)
        }
    }

    /// The same with the folder of a store that is open: a file's rollups file, or the database in memory itself.
    static func migrate(_ database: any DatabaseWriter, folder: SQLiteRollupFolder) throws {
        if folder.ownsWriter {
            try SQLiteRollupSchema.migrator.migrate(folder.writer)
            try migrator(rollups: folder.writer).migrate(database)
            try SQLiteRollupSchema.adopt(folder.writer)
        } else {
            try migrator(rollups: nil).migrate(database)
            try SQLiteRollupSchema.migrator.migrate(database)
        }
    }

    /// The migrations; `rollups` is the connection to the rollups file (``SQLiteRollupFolder``) that migration 0013
    /// moves the rollups into, or `nil` where they stay in the database (a store in memory).
    private static func migrator(rollups: (any DatabaseWriter)?) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(firstStep) { db in
            // The unique key leads with transaction_id so that it also serves GET /postbacks/{transaction-id}
            // without a second index to maintain on every insert.
            try db.execute(sql: """
                CREATE TABLE postbacks (
                    id INTEGER PRIMARY KEY,
                    transaction_id TEXT NOT NULL,
                    ad_network_id TEXT NOT NULL,
                    dedup_sequence_index INTEGER NOT NULL,
                    version TEXT NOT NULL,
                    has_version_key INTEGER NOT NULL,
                    campaign_id INTEGER,
                    source_identifier TEXT,
                    app_id INTEGER NOT NULL,
                    redownload INTEGER,
                    source_app_id INTEGER,
                    source_domain TEXT,
                    fidelity_type INTEGER,
                    did_win INTEGER,
                    postback_sequence_index INTEGER,
                    conversion_value INTEGER,
                    coarse_conversion_value TEXT,
                    country_code TEXT,
                    attribution_signature TEXT NOT NULL,
                    extras TEXT,
                    raw_body BLOB NOT NULL,
                    received_at TEXT NOT NULL,
                    key_name TEXT NOT NULL,
                    layout TEXT NOT NULL,
                    endpoint TEXT NOT NULL,
                    UNIQUE (transaction_id, ad_network_id, dedup_sequence_index)
                )
                """)
        }
        migrator.registerMigration("0002-rejected-postbacks") { db in
            try db.execute(sql: """
                CREATE TABLE rejected_postbacks (
                    id INTEGER PRIMARY KEY,
                    received_at TEXT NOT NULL,
                    status TEXT NOT NULL,
                    field TEXT,
                    reason TEXT NOT NULL,
                    version TEXT,
                    transaction_id TEXT,
                    ad_network_id TEXT,
                    endpoint TEXT NOT NULL,
                    body_length INTEGER NOT NULL,
                    raw_body BLOB NOT NULL
                );
                CREATE TABLE counters (
                    name TEXT PRIMARY KEY,
                    value INTEGER NOT NULL
                ) WITHOUT ROWID;
                INSERT INTO counters (name, value) VALUES ('rejected_dropped', 0);
                """)
        }
        migrator.registerMigration("0003-stat-counters") { db in
            // GET /stats reads these counters instead of counting rows, which took seconds on a table of millions.
            // The writer keeps them in the transaction of its inserts; this counts what is already there, once.
            try db.execute(sql: """
                INSERT INTO counters (name, value)
                    SELECT '\(StatCounter.postbacksPrefix)' || version, count(*) FROM postbacks GROUP BY version;
                INSERT INTO counters (name, value)
                    SELECT '\(StatCounter.rejectedPrefix)' || status, count(*) FROM rejected_postbacks GROUP BY status;
                """)
        }
        migrator.registerMigration("0004-framework") { db in
            // AdAttributionKit postbacks arrive beside SKAdNetwork ones, and nothing stops the two frameworks'
            // dedup ids from meeting: the framework joins the unique key, and the fields only AdAttributionKit
            // sends get columns (it has no version). SQLite cannot change a table's
            // constraints in place, so the table is rebuilt in this migration's transaction (ids kept, every row
            // copied; a failure rolls back to the old table). The default keeps an older release's insert,
            // which names no framework, working on a migrated file.
            let old = "id, transaction_id, ad_network_id, dedup_sequence_index, version, has_version_key, campaign_id, "
                + "source_identifier, app_id, redownload, source_app_id, source_domain, fidelity_type, did_win, "
                + "postback_sequence_index, conversion_value, coarse_conversion_value, country_code, "
                + "attribution_signature, extras, raw_body, received_at, key_name, layout, endpoint"
            try db.execute(sql: """
                CREATE TABLE postbacks_new (
                    id INTEGER PRIMARY KEY,
                    transaction_id TEXT NOT NULL,
                    ad_network_id TEXT NOT NULL,
                    dedup_sequence_index INTEGER NOT NULL,
                    version TEXT,
                    has_version_key INTEGER NOT NULL,
                    campaign_id INTEGER,
                    source_identifier TEXT,
                    app_id INTEGER NOT NULL,
                    redownload INTEGER,
                    source_app_id INTEGER,
                    source_domain TEXT,
                    fidelity_type INTEGER,
                    did_win INTEGER,
                    postback_sequence_index INTEGER,
                    conversion_value INTEGER,
                    coarse_conversion_value TEXT,
                    country_code TEXT,
                    attribution_signature TEXT NOT NULL,
                    extras TEXT,
                    raw_body BLOB NOT NULL,
                    received_at TEXT NOT NULL,
                    key_name TEXT NOT NULL,
                    layout TEXT NOT NULL,
                    endpoint TEXT NOT NULL,
                    framework TEXT NOT NULL DEFAULT 'skadnetwork',
                    conversion_type TEXT,
                    marketplace_identifier TEXT,
                    impression_type TEXT,
                    UNIQUE (transaction_id, ad_network_id, dedup_sequence_index, framework)
                );
                INSERT INTO postbacks_new (\(old), framework, conversion_type)
                    SELECT \(old), 'skadnetwork',
                        CASE redownload WHEN 1 THEN 'redownload' WHEN 0 THEN 'download' END FROM postbacks;
                DROP TABLE postbacks;
                ALTER TABLE postbacks_new RENAME TO postbacks;
                """)
        }
        migrator.registerMigration("0005-web-ads") { db in
            // Web ads registered before they are served (SQLiteWebAdStore); the expiry is in milliseconds since
            // 1970 and indexed, so the periodic clean-up and the expired check read only what they need.
            try db.execute(sql: """
                CREATE TABLE web_ads (
                    nonce TEXT PRIMARY KEY,
                    source_domain TEXT NOT NULL,
                    response TEXT NOT NULL,
                    expires_at INTEGER NOT NULL
                );
                CREATE INDEX web_ads_expires_at ON web_ads (expires_at);
                """)
        }
        migrator.registerMigration("0006-rollups") { db in
            // The dashboard's panels over millions of postbacks read per-day rollups instead of every row. A trigger
            // keeps them, so every writer of the file keeps them (an older release's too) in the transaction of its
            // insert; a repeat of a dedup key inserts no row and fires nothing. The rows already stored are counted
            // once, here.
            for rollup in PostbackRollup.first {
                try db.execute(sql: rollupTable(rollup) + ";\n" + rollup.backfill())
            }
            try db.execute(sql: rollupTrigger(PostbackRollup.first))
        }
        migrator.registerMigration("0007-campaign-days") { db in
            // Installs by campaign and day read a rollup of one row per day and campaign with its counts;
            // the trigger is made again to keep it too.
            try db.execute(sql: rollupTable(PostbackRollup.campaignDays) + ";\n" + PostbackRollup.campaignDays.backfill())
            try db.execute(sql: "DROP TRIGGER \(rollupTriggerName);\n" + rollupTrigger(PostbackRollup.all))
        }
        migrator.registerMigration("0008-rollups-folded") { db in
            // The writer folds postbacks into the rollups many at a time (SQLiteRollupFold) instead of a trigger
            // per row: on a network's traffic the trigger cost more than the insert it followed. Every row stored
            // so far was counted by the trigger, so each rollup's watermark starts at the newest; each key index becomes one
            // that ON CONFLICT can use (absent values read as an empty blob). The trigger kept one row per key
            // under `IS`, so the new unique index holds.
            // The rollup with campaigns loses its campaign index: its key index now leads with the campaign.
            try db.execute(sql: "DROP TRIGGER \(rollupTriggerName)")
            for rollup in PostbackRollup.all {
                try db.execute(sql: "DROP INDEX \(rollup.name)_key;\n" + SQLiteRollupFold.keyIndex(rollup))
                if SQLiteRollupFold.leadsWithCampaign(rollup) { try db.execute(sql: "DROP INDEX \(rollup.name)_campaign") }
            }
            try db.execute(sql: """
                CREATE TABLE \(SQLiteRollupFold.watermarkTable) (
                    rollup TEXT PRIMARY KEY,
                    folded_through INTEGER NOT NULL
                ) WITHOUT ROWID
                """)
            for rollup in PostbackRollup.all {
                try db.execute(sql: """
                    INSERT INTO \(SQLiteRollupFold.watermarkTable) (rollup, folded_through)
                        SELECT ?, COALESCE(max(id), 0) FROM \(PostbackTable.name)
                    """, arguments: [rollup.name])
            }
        }
        migrator.registerMigration("0009-relay-outbox") { db in try db.execute(sql: SQLiteOutbox.schema) }
        migrator.registerMigration("0010-conflicts") { db in
            // Repeats of stored postbacks whose unsigned values differ, or that came from the other side (a developer
            // copy beside the network's postback): RepeatTable. Written only when a duplicate arrives.
            try db.execute(sql: repeatsTable + ";\n" + RepeatTable.conflictsIndex)
        }
        migrator.registerMigration("0011-campaigns") { db in try db.execute(sql: SQLiteCampaignMapStore.schema) }
        migrator.registerMigration("0013-rollups-own-file") { db in
            // The rollups move to a file of their own, folded on a connection of their own (SQLiteRollupFolder), so
            // that a fold never holds the database's write lock and the postbacks behind it. The rollups file has
            // their tables already (its own migrations run first); the rows and watermarks are copied there, from
            // what the earlier migrations committed, and dropped here. An older release cannot read the rollups of a
            // file past this step.
            // The database's name for itself, which the rollups file records (SQLiteRollupSchema.adopt): a rollups
            // file left beside a database made again at the same path is then told apart.
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(SQLiteRollupSchema.databaseIdentityTable) (id TEXT NOT NULL)")
            try db.execute(sql: """
                INSERT INTO \(SQLiteRollupSchema.databaseIdentityTable) (id)
                    SELECT ? WHERE NOT EXISTS (SELECT 1 FROM \(SQLiteRollupSchema.databaseIdentityTable))
                """, arguments: [UUID().uuidString])
            guard let rollups else { return }
            try SQLiteRollupSchema.copyFromDatabase(into: rollups)
            for rollup in PostbackRollup.all {
                try db.execute(sql: "DROP TABLE \(rollup.name)")
            }
            try db.execute(sql: "DROP TABLE \(SQLiteRollupFold.watermarkTable)")
        }
        migrator.registerMigration("0014-integrity") { db in
            // Where the first (counted) postback of a kept repeat came from: its client address, when the repeat
            // found it in its own batch (RepeatComparison.firstClientAddress). And the conflicts by value that
            // differed (GET /stats, /metrics), counted once here for the conflicts kept before.
            for column in RepeatTable.addedColumns {
                let kind = RepeatTable.columns.first { $0.name == column }!.kind
                try db.execute(sql: "ALTER TABLE \(RepeatTable.name) ADD COLUMN \(column) \(type(of: kind))")
            }
            try db.execute(sql: """
                INSERT INTO counters (name, value) SELECT * FROM (\(RepeatTable.conflictsByFieldBackfill)) WHERE true
                ON CONFLICT (name) DO UPDATE SET value = value + excluded.value
                """)
        }
        migrator.registerMigration("0015-client-address") { db in
            // Each postback's client address, when the collector resolved one (PostbackTable.clientAddress): a
            // conflict whose first copy arrived in an earlier batch says where that copy came from too. The rows
            // already stored have none; adding a column at the end rewrites nothing.
            for column in PostbackTable.addedColumns {
                try db.execute(sql: "ALTER TABLE \(PostbackTable.name) ADD COLUMN \(column.name) \(type(of: column.kind))")
            }
        }
        migrator.registerMigration("0016-relay-outbox-postback") { db in try db.execute(sql: SQLiteOutbox.postbackReference) }
        return migrator
    }

    /// `postback_repeats` as ``RepeatTable`` describes it, without the columns later migrations add.
    static var repeatsTable: String {
        let columns = ["id INTEGER PRIMARY KEY"]
            + RepeatTable.firstMigrationColumns.map { "\($0.name) \(type(of: $0.kind))\($0.isNullable ? "" : " NOT NULL")" }
        return "CREATE TABLE \(RepeatTable.name) (\n    \(columns.joined(separator: ",\n    ")),\n"
            + "    UNIQUE (\(RepeatTable.uniqueKey.joined(separator: ", ")))\n)"
    }

    /// A rollup's table as ``PostbackRollup`` describes it, and the index its trigger finds a row by. NULLs are
    /// distinct in a SQLite unique index, so the trigger, not the index, keeps one row per key: it compares with
    /// `IS`, which the index serves.
    static func rollupTable(_ rollup: PostbackRollup) -> String {
        let key = rollup.key()
        let columns = key.map { "\($0.name) \(type(of: $0.kind))\($0.isNullable ? "" : " NOT NULL")" }
            + rollup.counts.map { "\($0) INTEGER NOT NULL" }
        return """
            CREATE TABLE \(rollup.name) (
                \(columns.joined(separator: ",\n    "))
            );
            CREATE UNIQUE INDEX \(rollup.name)_key ON \(rollup.name) (\(key.map(\.name).joined(separator: ", ")))\(campaignIndex(rollup))
            """
    }

    /// For a rollup with campaigns, an index on exactly the expression a campaign filter compares (SQLite uses an
    /// index on an expression only for that expression), so that a view of one campaign reads its rows alone, not
    /// the millions of every campaign.
    static func campaignIndex(_ rollup: PostbackRollup) -> String {
        guard rollup.dimensions.contains(.campaign) else { return "" }
        let filtered = SQLiteAggregateSQL.filterExpression(.campaign, day: .arrival)
        return ";\nCREATE INDEX \(rollup.name)_campaign ON \(rollup.name) (\(filtered))"
    }

    /// The trigger that adds each inserted postback to its row of each of `rollups`, or makes the row: an update, then
    /// an insert when the update found none (`changes()` inside a trigger counts the trigger's own last statement).
    static func rollupTrigger(_ rollups: [PostbackRollup]) -> String {
        let statements = rollups.map { rollup in
            let key = rollup.key(row: "NEW.")
            let measures = rollup.keepsMeasures ? PostbackRollup.measures(row: "NEW.") : []
            let added = [(PostbackRollup.count, "1")] + measures.map { ($0.name, PostbackRollup.one($0.condition)) }
            return """
                    UPDATE \(rollup.name) SET \(added.map { "\($0.0) = \($0.0) + \($0.1)" }.joined(separator: ", "))
                        WHERE \(key.map { "\($0.name) IS \($0.value)" }.joined(separator: " AND "));
                    INSERT INTO \(rollup.name) (\((key.map(\.name) + added.map(\.0)).joined(separator: ", ")))
                        SELECT \((key.map(\.value) + added.map(\.1)).joined(separator: ", ")) WHERE changes() = 0;
                """
        }
        return """
            CREATE TRIGGER \(rollupTriggerName) AFTER INSERT ON \(PostbackTable.name) BEGIN
            \(statements.joined(separator: "\n"))
            END
            """
    }

    /// The name of ``rollupTrigger(_:)``.
    static let rollupTriggerName = "postback_rollups_count"

    /// A column kind's SQLite type, as the postbacks table declares it.
    static func type(of kind: PostbackColumn.Kind) -> String {
        switch kind {
        case .text: "TEXT"
        case .integer, .boolean: "INTEGER"
        case .blob: "BLOB"
        }
    }
}
