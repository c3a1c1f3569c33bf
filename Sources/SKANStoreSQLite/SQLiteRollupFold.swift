import GRDB
import SKANStore

/// How SQLite keeps the per-day rollups: the postbacks stored since a rollup's last fold are folded into it, and that
/// rollup's watermark (`rollup_watermark.folded_through`, the last folded `postbacks.id`) moves in the same transaction
/// of the rollups file, on its own connection beside the writer (``SQLiteRollupFolder``). One rollup and at most
/// ``RollupFolding/step`` rows at a time, the rollup furthest behind. Reads add the rows past the rollup's watermark
/// (``unfolded(_:)``), so every answer counts exactly the committed postbacks whatever is folded.
///
/// Why not a trigger per row: every postback of a network's traffic (thousands of source identifiers, 64 values,
/// three windows) is a new key of the rollup with campaigns, so each row inserted index entries at random places in
/// three b-trees, and each group commit wrote every page it touched to the WAL again. In `sqlite3`'s own terms
/// (Benchmarks/rollup-trigger.py, 120,000 traffic-shaped rows of one day in commits of 400, synchronous=FULL): 43.6 µs
/// of CPU and 13.6 KB written per row with the trigger, 23.7 µs and 7.3 KB folding every 4,096 rows, 8.8 µs and 1.9 KB
/// with no rollups. A fold's `GROUP BY` also counts a burst of one key once.
///
/// A crash loses nothing: the unfolded rows are in `postbacks`, and the next fold, by any writer of the file (a
/// second process included, as it reads the watermark in its own transaction), counts them. Retention deletes only
/// rows folded first, and never the newest row, so ids only grow (``SQLitePostbackStore/deletePostbacks(receivedBefore:limit:)``).
enum SQLiteRollupFold {
    /// The table holding the watermarks, a row per rollup.
    static let watermarkTable = "rollup_watermark"

    /// The condition on a `postbacks` row that it is not yet in `rollup`.
    static func unfolded(_ rollup: PostbackRollup) -> String {
        "id > (SELECT folded_through FROM \(watermarkTable) WHERE rollup = '\(rollup.name)')"
    }

    /// What keeps one row per key in a rollup: its key with every absent value read as an empty blob, a value no
    /// column of `postbacks` holds, because SQLite's unique indexes treat NULLs as distinct and `ON CONFLICT`
    /// needs a unique index to find a row by.
    ///
    /// The rollup with campaigns leads with the expression a campaign filter compares, so that this one index also
    /// finds a view of one campaign (days in order within it). Why only there: on a network's traffic nearly every
    /// postback is a new key of that rollup, so each index on it costs an insert at a random place per postback,
    /// and a separate campaign index was a third b-tree written per postback; the other rollups mostly add to rows
    /// they have.
    static func conflictTarget(_ rollup: PostbackRollup) -> String {
        let key = rollup.key().map { $0.isNullable ? "IFNULL(\($0.name), x'')" : $0.name }
        return (leadsWithCampaign(rollup) ? [SQLiteAggregateSQL.filterExpression(.campaign, day: .arrival)] + key : key)
            .joined(separator: ", ")
    }

    /// Whether ``conflictTarget(_:)`` of `rollup` leads with the campaign: the rollup with campaigns.
    static func leadsWithCampaign(_ rollup: PostbackRollup) -> Bool {
        rollup.name == PostbackRollup.withCampaigns.name
    }

    /// The unique index behind ``conflictTarget(_:)``.
    static func keyIndex(_ rollup: PostbackRollup) -> String {
        "CREATE UNIQUE INDEX \(rollup.name)_key ON \(rollup.name) (\(conflictTarget(rollup)))"
    }

    /// The rows a fold reads, copied once from `postbacks` into a narrow table in memory: every rollup then groups
    /// them without reading the wide rows (raw bodies, signatures) again. It has the columns of `postbacks` that a
    /// rollup's key or count reads, under their names, so ``PostbackRollup/key(row:)`` and the measures read it as
    /// they read `postbacks`; the arrival time is cut to its day, all that the key reads of it.
    static let foldRows = "temp.rollup_fold_rows"

    static let foldColumns: [PostbackColumn] = {
        var columns = [PostbackTable.receivedAt, PostbackTable.sourceIdentifier]
        for column in PostbackRollup.all.flatMap(\.columns) + PostbackRollup.measuredColumns
        where !columns.contains(where: { $0.name == column.name }) {
            columns.append(column)
        }
        return columns
    }()

    /// Makes ``foldRows`` and the range it holds (`temp.rollup_fold_range`), on a connection's first fold.
    static let makeStatements = [
        "CREATE TEMP TABLE IF NOT EXISTS rollup_fold_rows (\(foldColumns.map(\.name).joined(separator: ", ")))",
        "CREATE TEMP TABLE IF NOT EXISTS rollup_fold_range (after INTEGER NOT NULL, through INTEGER NOT NULL)",
    ]

    /// Empties ``foldRows``, copies `?1 < id <= ?2` into it, and records that range.
    static let copyStatements = [
        "DELETE FROM \(foldRows)",
        """
        INSERT INTO \(foldRows) (\(foldColumns.map(\.name).joined(separator: ", ")))
            SELECT \(foldColumns.map { $0.name == PostbackTable.receivedAt.name ? "substr(\($0.name), 1, 10)" : $0.name }
                        .joined(separator: ", "))
            FROM \(PostbackTable.name) WHERE id > ?1 AND id <= ?2
        """,
        "DELETE FROM temp.rollup_fold_range",
        "INSERT INTO temp.rollup_fold_range (after, through) VALUES (?1, ?2)",
    ]

    /// Counts the rows of ``foldRows`` into `rollup`: the backfill's `GROUP BY`, added to the rows the rollup
    /// already has.
    static func statement(_ rollup: PostbackRollup) -> String {
        let key = rollup.key()
        return """
            INSERT INTO \(rollup.name) (\((key.map(\.name) + rollup.counts).joined(separator: ", ")))
                SELECT \((key.map(\.value) + rollup.countAggregates).joined(separator: ", "))
                FROM \(foldRows) WHERE true
                GROUP BY \((1...key.count).map(String.init).joined(separator: ", "))
            ON CONFLICT (\(conflictTarget(rollup))) DO UPDATE SET
                \(rollup.counts.map { "\($0) = \($0) + excluded.\($0)" }.joined(separator: ", "))
            """
    }

    /// Folds the rollup furthest behind when at least `threshold` rows wait for it: at most `step` of them, up to
    /// `lastID` (the newest id stored). Returns the lowest watermark after it and whether it folded. Runs inside a
    /// write transaction.
    @discardableResult
    static func foldIfDue(lastID: Int64, threshold: Int, step: Int,
                          in db: Database) throws -> (watermark: Int64, folded: Bool) {
        let marks = try watermarks(in: db)
        let behind = PostbackRollup.all.map { ($0, marks[$0.name] ?? 0) }
        guard let (rollup, watermark) = behind.min(by: { $0.1 < $1.1 }) else { return (lastID, false) }
        guard lastID - watermark >= Int64(max(threshold, 1)) else { return (watermark, false) }
        let end = lastID - watermark > Int64(step) ? watermark + Int64(step) : lastID
        let through = try fold(rollup, after: watermark, through: end, in: db)
        return (behind.map { $0.0.name == rollup.name ? through : $0.1 }.min() ?? through, true)
    }

    /// Folds every row past every watermark: what a clean close leaves behind, so that an older release, which reads
    /// the rollups alone, finds them whole. In steps of `step` ids, so that rows an older release stored without
    /// rollups never fill memory at once.
    static func foldAll(in db: Database, step: Int64 = 65_536) throws {
        let marks = try watermarks(in: db)
        let last = try Int64.fetchOne(db, sql: "SELECT max(id) FROM \(PostbackTable.name)") ?? 0
        for rollup in PostbackRollup.all {
            var watermark = marks[rollup.name] ?? 0
            while last > watermark {
                let through = min(last, watermark + step)
                try fold(rollup, after: watermark, through: through, in: db)
                watermark = through
            }
        }
    }

    /// Each rollup's watermark by its name.
    static func watermarks(in db: Database) throws -> [String: Int64] {
        var marks: [String: Int64] = [:]
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT rollup, folded_through FROM \(watermarkTable)"))
        while let row = try rows.next() { marks[row[0]] = row[1] }
        return marks
    }

    /// Folds the rows after `watermark` into `rollup`, through `last` or, where the rows a previous fold copied start
    /// at the same watermark and end before `last`, through their end: the three rollups fold one range in turn from
    /// one copy. The copy and its range are temporary tables, so a transaction that rolls back takes them back too.
    @discardableResult
    private static func fold(_ rollup: PostbackRollup, after watermark: Int64, through last: Int64,
                             in db: Database) throws -> Int64 {
        for statement in makeStatements { try db.execute(sql: statement) }
        var through = last
        let copied = try Row.fetchOne(db.cachedStatement(sql: "SELECT after, through FROM temp.rollup_fold_range"))
        let after: Int64? = copied?[0], end: Int64? = copied?[1]
        if let after, let end, after == watermark, end <= last {
            through = end
        } else {
            for statement in copyStatements {
                try db.cachedStatement(sql: statement).execute(arguments: StatementArguments(
                    statement.contains("?2") ? [watermark, last] : []))
            }
        }
        try db.cachedStatement(sql: statement(rollup)).execute()
        try db.cachedStatement(sql: "UPDATE \(watermarkTable) SET folded_through = ? WHERE rollup = ?")
            .execute(arguments: [through, rollup.name])
        return through
    }
}
