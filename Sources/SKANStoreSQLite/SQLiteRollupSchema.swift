import GRDB
import SKANStore

/// The rollups' own file (``SQLiteRollupFolder``): its tables, as the database's migrations 0006–0008 left them there,
/// and the move of a database's rollups into it.
enum SQLiteRollupSchema {
    /// The rollups file's migrations. `IF NOT EXISTS` throughout: a store in memory keeps its rollups in its one
    /// database, where the database's own migrations made them first.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("rollups-0001") { db in
            for rollup in PostbackRollup.all {
                try db.execute(sql: table(rollup))
            }
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS \(SQLiteRollupFold.watermarkTable) (
                    rollup TEXT PRIMARY KEY,
                    folded_through INTEGER NOT NULL
                ) WITHOUT ROWID
                """)
            for rollup in PostbackRollup.all {
                try db.execute(sql: "INSERT OR IGNORE INTO \(SQLiteRollupFold.watermarkTable) (rollup, folded_through) VALUES (?, 0)",
                               arguments: [rollup.name])
            }
            // Which database the rollups count (``adopt(_:)``): none yet.
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(identityTable) (database TEXT NOT NULL)")
        }
        migrator.registerMigration("rollups-0002-day-index") { db in
            try db.execute(sql: dayIndex)
        }
        return migrator
    }

    /// The days of the rollup with campaigns, for a view over a date range by campaign (a network's or a window's
    /// stacked by campaign): its key index leads with the campaign, so without this such a view read all of it, 3.26
    /// million rows and 387 ms a page over the dashboard benchmark's 10,000,000 postbacks. A fold adds its new rows
    /// at today's end of it: 1,700 instructions and 250 bytes a postback (Benchmarks/history/2026-11.md, "A day
    /// index on the rollup with campaigns").
    static let dayIndex = """
        CREATE INDEX IF NOT EXISTS \(PostbackRollup.withCampaigns.name)_day
            ON \(PostbackRollup.withCampaigns.name) (\(PostbackRollup.day))
        """

    /// The rollups file's record of the database it counts, and the database's own name for itself (migration 0013).
    static let identityTable = "rollups_identity"
    static let databaseIdentityTable = "database_identity"

    /// Makes the rollups file count the database attached beside it. A file that counted another database (one removed
    /// and made again at the same path while the rollups file stayed, or restored from a copy), or whose watermarks
    /// are past the database's newest row, is emptied, so that the folder counts every row again: its watermarks
    /// would otherwise mark rows of this database as counted. Runs on the folder's connection.
    static func adopt(_ rollups: any DatabaseWriter) throws {
        try rollups.writeWithoutTransaction { db in
            try db.inTransaction(.deferred) {
                try SQLiteRollupFolder.lockRollups(db)
                let database = SQLiteRollupFolder.attachedDatabase
                let owner = try String.fetchOne(db, sql: "SELECT id FROM \(database).\(databaseIdentityTable)")
                let counted = try String.fetchOne(db, sql: "SELECT database FROM main.\(identityTable)")
                let last = try Int64.fetchOne(db, sql: "SELECT COALESCE(max(id), 0) FROM \(database).\(PostbackTable.name)") ?? 0
                let furthest = try Int64.fetchOne(db, sql: "SELECT COALESCE(max(folded_through), 0) FROM main.\(SQLiteRollupFold.watermarkTable)") ?? 0
                if counted == owner && furthest <= last { return .commit }
                if (counted != nil && counted != owner) || furthest > last {
                    for rollup in PostbackRollup.all { try db.execute(sql: "DELETE FROM main.\(rollup.name)") }
                    try db.execute(sql: "UPDATE main.\(SQLiteRollupFold.watermarkTable) SET folded_through = 0")
                }
                try db.execute(sql: "DELETE FROM main.\(identityTable)")
                try db.execute(sql: "INSERT INTO main.\(identityTable) (database) VALUES (?)", arguments: [owner ?? ""])
                return .commit
            }
        }
    }

    /// Whether a reader's connection, with the rollups file attached, sees them counting its database (``adopt(_:)``).
    static func counts(_ db: Database) throws -> Bool {
        let rollups = SQLiteRollupFolder.attachedRollups
        guard try db.tableExists(databaseIdentityTable, in: "main"),
              try db.tableExists(identityTable, in: rollups) else { return false }
        let owner = try String.fetchOne(db, sql: "SELECT id FROM main.\(databaseIdentityTable)")
        let counted = try String.fetchOne(db, sql: "SELECT database FROM \(rollups).\(identityTable)")
        let last = try Int64.fetchOne(db, sql: "SELECT COALESCE(max(id), 0) FROM main.\(PostbackTable.name)") ?? 0
        let furthest = try Int64.fetchOne(db, sql: "SELECT COALESCE(max(folded_through), 0) FROM \(rollups).\(SQLiteRollupFold.watermarkTable)") ?? 0
        return owner != nil && counted == owner && furthest <= last
    }

    /// A rollup's table and indexes: its key index (``SQLiteRollupFold/keyIndex(_:)``) and, where the key does not
    /// lead with the campaign, the campaign index.
    static func table(_ rollup: PostbackRollup) -> String {
        let columns = rollup.key().map { "\($0.name) \(SQLiteSchema.type(of: $0.kind))\($0.isNullable ? "" : " NOT NULL")" }
            + rollup.counts.map { "\($0) INTEGER NOT NULL" }
        let campaign = SQLiteRollupFold.leadsWithCampaign(rollup) ? ""
            : SQLiteSchema.campaignIndex(rollup).replacingOccurrences(of: "CREATE INDEX", with: "CREATE INDEX IF NOT EXISTS")
        return """
            CREATE TABLE IF NOT EXISTS \(rollup.name) (
                \(columns.joined(separator: ",\n    "))
            );
            \(SQLiteRollupFold.keyIndex(rollup).replacingOccurrences(of: "CREATE UNIQUE INDEX", with: "CREATE UNIQUE INDEX IF NOT EXISTS"))\(campaign)
            """
    }

    /// Copies the rollups and watermarks that a database's migrations 0006–0008 kept in the database itself into the
    /// rollups file, replacing what the file held: the database's migration 0013 then drops them there. Run again
    /// after a crash between the two, it copies the same rows again.
    static func copyFromDatabase(into rollups: any DatabaseWriter) throws {
        try rollups.writeWithoutTransaction { db in
            try db.inTransaction(.deferred) {
                let database = SQLiteRollupFolder.attachedDatabase
                for rollup in PostbackRollup.all {
                    let columns = (rollup.key().map(\.name) + rollup.counts).joined(separator: ", ")
                    try db.execute(sql: """
                        DELETE FROM main.\(rollup.name);
                        INSERT INTO main.\(rollup.name) (\(columns)) SELECT \(columns) FROM \(database).\(rollup.name)
                        """)
                }
                // The copied rollups count this database: ``adopt(_:)`` then records it, whatever the file counted.
                try db.execute(sql: "DELETE FROM main.\(identityTable)")
                try db.execute(sql: """
                    DELETE FROM main.\(SQLiteRollupFold.watermarkTable);
                    INSERT INTO main.\(SQLiteRollupFold.watermarkTable) (rollup, folded_through)
                        SELECT rollup, folded_through FROM \(database).\(SQLiteRollupFold.watermarkTable)
                    """)
                return .commit
            }
        }
    }
}
