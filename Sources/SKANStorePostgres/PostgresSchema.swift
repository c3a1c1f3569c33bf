import PostgresNIO
import SKANStore

/// The PostgreSQL schema as numbered migrations, recorded in `skan_migrations`. ``migrate(_:location:)`` runs them in
/// one transaction under an advisory lock, so collectors that start together migrate once: the others wait for
/// the lock and then find nothing left to do.
enum PostgresSchema {
    /// The advisory lock key of the migrations (any constant no other program of ours takes): "SKANMIGR".
    static let migrationLock: Int64 = 0x534B_414E_4D49_4752
    /// The advisory lock key of the refusal cap's job: "SKANCAP!".
    static let capLock: Int64 = 0x534B_414E_4341_5021

    /// How long the migrations may take: a migration that counts the rows already stored reads them all (0005's
    /// rollups took more than a minute over 10,000,000 postbacks, when the deadline was 60 s and the collector could
    /// not start), so the deadline is the one a large store needs, not a network's.
    static let migrationSeconds = 3600

    /// The migrations in order: an id and its statements. A later release appends; a database runs those it
    /// has not recorded.
    static let migrations: [(id: String, sql: [String])] = [
        ("0001-postbacks", [createPostbacks]),
        ("0002-rejected-postbacks", [
            """
            CREATE TABLE rejected_postbacks (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                received_at text NOT NULL,
                status text NOT NULL,
                field text,
                reason text NOT NULL,
                version text,
                transaction_id text,
                ad_network_id text,
                endpoint text NOT NULL,
                body_length bigint NOT NULL,
                raw_body bytea NOT NULL
            )
            """,
        ]),
        ("0003-stat-counters", [
            // One row per collector and counter, summed on read: a row shared by every collector would make each
            // commit of the fleet wait for the one before it.
            """
            CREATE TABLE stat_counters (
                collector text NOT NULL,
                name text NOT NULL,
                value bigint NOT NULL,
                PRIMARY KEY (collector, name)
            )
            """,
        ]),
        ("0004-web-ads", [
            // Web ads registered before they are served (PostgresWebAdStore); expiry in milliseconds since 1970.
            """
            CREATE TABLE web_ads (
                nonce text PRIMARY KEY,
                source_domain text NOT NULL,
                response text NOT NULL,
                expires_at bigint NOT NULL
            )
            """,
            "CREATE INDEX web_ads_expires_at ON web_ads (expires_at)",
        ]),
        // The dashboard's panels read per-day rollups instead of every postback; each collector adds what it
        // stored in the statement that stores it (PostgresPostbackStore.rollupInserts), on rows of its own, so that
        // collectors never wait for each other's counts. The rows already stored are counted once, here.
        ("0005-rollups", PostbackRollup.first.flatMap(made) + PostbackRollup.first.compactMap(campaignIndex)),
        // Installs by campaign and day read a rollup of one row per day and campaign with its counts.
        ("0006-campaign-days", made(PostbackRollup.campaignDays) + [campaignIndex(PostbackRollup.campaignDays)].compactMap { $0 }
            + [dayCampaignOrder]),
        // The relay's outbox (PostgresOutbox), written with the postbacks it follows and claimed under leases.
        ("0007-relay-outbox", PostgresOutbox.schema),
        // Repeats of stored postbacks whose unsigned values differ, or from the other side (RepeatTable); written only
        // when a duplicate arrives. (0007 is the relay's outbox.)
        ("0008-conflicts", [PostgresPostbackStore.createRepeats, RepeatTable.conflictsIndex]),
        // The campaign map `skan campaigns import` replaces network by network (PostgresCampaignMapStore).
        ("0009-campaigns", PostgresCampaignMapStore.schema),
        // The first postback's client address beside a kept repeat, and conflicts counted by value that differed.
        ("0011-integrity", PostgresPostbackStore.integrityMigration),
        // Each postback's client address, when the collector resolved one (PostbackTable.clientAddress), so that a
        // conflict across batches says where its first copy came from. The rows already stored have none.
        ("0012-client-address", PostbackTable.addedColumns.map {
            "ALTER TABLE \(PostbackTable.name) ADD COLUMN \($0.name) \(type(of: $0.kind))"
        }),
    ]

    /// The campaign-day rollup in the order a report by day and campaign groups and sorts it (the expressions and
    /// collations of ``PostgresAggregateSQL``, absent values first), so that PostgreSQL groups it as it reads it instead
    /// of sorting 155,000 rows for every overview stacked by campaign (a sort past the default `work_mem` goes to
    /// disk: 242 ms against 136 ms with the index, over the dashboard benchmark's rollup).
    static let dayCampaignOrder = """
        CREATE INDEX \(PostbackRollup.campaignDays.name)_order ON \(PostbackRollup.campaignDays.name)
            ((\(PostgresAggregateSQL.rollupDay))\(PostgresAggregateSQL.orderSuffix),
             (\(PostgresAggregateSQL.expression(.campaign, day: .arrival)))\(PostgresAggregateSQL.orderSuffix))
        """

    /// A rollup's table, and the statement that counts the rows stored before it into the shared collector's rows.
    static func made(_ rollup: PostbackRollup) -> [String] {
        [createRollup(rollup), rollup.backfill(extra: [("collector", "'\(sharedCollector)'")])]
    }

    /// The collector name of the rollup and counter rows no running collector owns: those the migration counted and
    /// those a collector folded on close.
    static let sharedCollector = ""

    /// An upsert's `SET` list adding the `excluded` row's counts to the rollup row's.
    static func added(_ rollup: PostbackRollup) -> String {
        rollup.counts.map { "\($0) = \(rollup.name).\($0) + excluded.\($0)" }.joined(separator: ", ")
    }

    /// The name of a rollup's key, which the writes' `ON CONFLICT` names.
    static func rollupKey(_ rollup: PostbackRollup) -> String { "\(rollup.name)_key" }

    /// A rollup's table as ``PostbackRollup`` describes it, with the collector that counted each row. Absent values
    /// are one value of the key (`NULLS NOT DISTINCT`), as they are one group of a report.
    static func createRollup(_ rollup: PostbackRollup) -> String {
        let key = rollup.key()
        let columns = key.map { "\($0.name) \(type(of: $0.kind))\($0.isNullable ? "" : " NOT NULL")" }
            + ["collector text NOT NULL"] + rollup.counts.map { "\($0) bigint NOT NULL" }
        return """
            CREATE TABLE \(rollup.name) (
                \(columns.joined(separator: ",\n    ")),
                CONSTRAINT \(rollupKey(rollup)) UNIQUE NULLS NOT DISTINCT (\((key.map(\.name) + ["collector"]).joined(separator: ", ")))
            )
            """
    }

    /// On a rollup with campaigns, an index on exactly the expression a campaign filter compares, so that a view of
    /// one campaign reads its rows alone; `nil` for one without.
    static func campaignIndex(_ rollup: PostbackRollup) -> String? {
        guard rollup.dimensions.contains(.campaign) else { return nil }
        return "CREATE INDEX \(rollup.name)_campaign ON \(rollup.name) ((\(PostgresAggregateSQL.filterExpression(.campaign, day: .arrival))))"
    }

    /// Applies the migrations the database has not recorded, in one transaction under an advisory lock, so that
    /// collectors and signers starting together apply each exactly once.
    static func migrate(_ pool: PostgresPool, location: String) async throws(StoreError) {
        let logger = pool.logger
        try await pool.run(.migrationFailed, "cannot bring the PostgreSQL schema up to date at \(location)",
                           seconds: migrationSeconds) { client in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
                try await connection.query("""
                    CREATE TABLE IF NOT EXISTS skan_migrations (
                        id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
                var applied: Set<String> = []
                for try await id in try await connection.query("SELECT id FROM skan_migrations", logger: logger).decode(String.self) {
                    applied.insert(id)
                }
                for migration in migrations where !applied.contains(migration.id) {
                    for statement in migration.sql {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("INSERT INTO skan_migrations (id) VALUES (\(migration.id))", logger: logger)
                }
            }
        }
    }

    /// `postbacks` as ``PostbackTable`` describes it (PostgreSQL arrived with the table in this shape; a column
    /// added to the description later comes with a migration of its own). The unique key leads with
    /// `transaction_id`, so it also serves `GET /postbacks/{transaction-id}`.
    static var createPostbacks: String {
        let added = Set(PostbackTable.addedColumns.map(\.name))
        let columns = PostbackTable.columns.filter { !added.contains($0.name) }.map { column in
            "\(column.name) \(type(of: column.kind))\(column.isNullable ? "" : " NOT NULL")"
        }
        let key = PostbackTable.uniqueKey.map(\.name).joined(separator: ", ")
        return """
            CREATE TABLE \(PostbackTable.name) (
                \(PostbackTable.id) bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                \(columns.joined(separator: ",\n    ")),
                UNIQUE (\(key))
            )
            """
    }

    /// A column kind's PostgreSQL type.
    static func type(of kind: PostbackColumn.Kind) -> String {
        switch kind {
        case .text: "text"
        case .integer: "bigint"
        case .boolean: "boolean"
        case .blob: "bytea"
        }
    }
}
