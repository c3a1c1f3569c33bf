import SKANStore

/// The PostgreSQL schema as numbered migrations, recorded in `skan_migrations`. ``migrate(on:)`` runs them in
/// one transaction under an advisory lock, so collectors that start together migrate once: the others wait for
/// the lock and then find nothing left to do.
enum PostgresSchema {
    /// The advisory lock key of the migrations (any constant no other program of ours takes): "SKANMIGR".
    static let migrationLock: Int64 = 0x534B_414E_4D49_4752
    /// The advisory lock key of the refusal cap's job: "SKANCAP!".
    static let capLock: Int64 = 0x534B_414E_4341_5021

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
    ]

    /// `postbacks` as ``PostbackTable`` describes it (PostgreSQL arrived with the table in this shape; a column
    /// added to the description later comes with a migration of its own). The unique key leads with
    /// `transaction_id`, so it also serves `GET /postbacks/{transaction-id}`.
    static var createPostbacks: String {
        let columns = PostbackTable.columns.map { column in
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
