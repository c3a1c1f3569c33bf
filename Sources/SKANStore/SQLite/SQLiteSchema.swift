import GRDB

/// The schema as numbered migrations. GRDB records which ones ran in `grdb_migrations`, so a later release adds
/// `0003-…` and every existing database moves forward on its next start.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("0001-postbacks") { db in
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
        return migrator
    }
}
