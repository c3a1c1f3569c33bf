import Logging
import NIOCore
import PostgresNIO
import SKANCore
import SKANStore

extension PostgresPostbackStore {
    /// Rows per insert statement: PostgreSQL takes at most 65,535 parameters in one.
    static var rowsPerInsert: Int { 60_000 / PostbackTable.columns.count }

    /// Writes the batch in one transaction: multi-row inserts whose `ON CONFLICT DO NOTHING ... RETURNING` tells
    /// which postbacks this transaction stored (the others were stored before, by this collector or another),
    /// the refusals, then this collector's counters. Replies only after the commit. A batch of accepted postbacks
    /// only (the usual one) is a single statement, ``insertCounting(_:repeats:collector:)``.
    public func write(_ entries: [StoreEntry]) async throws(StoreError) -> [StoreOutcome] {
        if entries.isEmpty { return [] }
        // A key repeated inside the batch is a duplicate of its first occurrence: only that one goes to the
        // database, which decides between it and every other collector.
        var firstOfKey: [[ColumnValue]: Int] = [:]
        var accepted: [(index: Int, postback: AcceptedPostback)] = []
        var rejected: [RejectedPostback] = []
        for (index, entry) in entries.enumerated() {
            switch entry {
            case .accepted(let postback):
                let key = PostbackTable.uniqueKey.map { $0.value(postback) }
                if firstOfKey[key] == nil {
                    firstOfKey[key] = index
                    accepted.append((index, postback))
                }
            case .rejected(let refusal):
                rejected.append(refusal)
            }
        }
        let logger = pool.logger
        let collector = collectorName
        let firsts = firstOfKey
        if rejected.isEmpty, accepted.count <= Self.rowsPerInsert {
            // The common batch: one statement, so one round trip and PostgreSQL's own implicit transaction, with the
            // counters added inside it (a data-modifying CTE) instead of BEGIN, insert, counters, COMMIT.
            let repeats = entries.count - accepted.count
            let statement = Self.insertCounting(accepted.map(\.postback), repeats: repeats, collector: collector)
            return try await pool.run(.writeFailed, "cannot store \(entries.count) postbacks") { client in
                var stored: Set<[ColumnValue]> = []
                for try await row in try await client.query(statement, logger: logger) {
                    let cells = row.makeRandomAccess()
                    stored.insert(PostbackTable.uniqueKey.enumerated().map { column in
                        PostgresCells.value(cells[column.offset], kind: column.element.kind)
                    })
                }
                return Self.outcomes(entries, firstOfKey: firsts, stored: stored).0
            }
        }
        let inserts = stride(from: 0, to: accepted.count, by: Self.rowsPerInsert).map { start in
            Self.insert(accepted[start..<min(start + Self.rowsPerInsert, accepted.count)].map(\.postback), collector: collector)
        }
        let refusals = rejected.map { Self.insert($0, cap: cap) }
        let outcomes = try await pool.run(.writeFailed, "cannot store \(entries.count) postbacks") { client in
            try await client.withTransaction(logger: logger) { connection in
                var stored: Set<[ColumnValue]> = []
                for insert in inserts {
                    for try await row in try await connection.query(insert, logger: logger) {
                        let cells = row.makeRandomAccess()
                        stored.insert(PostbackTable.uniqueKey.enumerated().map { column in
                            PostgresCells.value(cells[column.offset], kind: column.element.kind)
                        })
                    }
                }
                for refusal in refusals { try await connection.query(refusal, logger: logger) }
                let (outcomes, changes) = Self.outcomes(entries, firstOfKey: firsts, stored: stored)
                if let counters = Self.addToCounters(changes, collector: collector) {
                    try await connection.query(counters, logger: logger)
                }
                return outcomes
            }
        }
        if !rejected.isEmpty { refusalsPending.withLock { $0 = true } }
        return outcomes
    }

    /// Each entry's outcome, and the counter changes they make.
    static func outcomes(_ entries: [StoreEntry], firstOfKey: [[ColumnValue]: Int],
                         stored: Set<[ColumnValue]>) -> ([StoreOutcome], [String: Int]) {
        var outcomes: [StoreOutcome] = []
        outcomes.reserveCapacity(entries.count)
        var changes: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            switch entry {
            case .accepted(let postback):
                let key = PostbackTable.uniqueKey.map { $0.value(postback) }
                if firstOfKey[key] == index, stored.contains(key) {
                    outcomes.append(.stored)
                    changes[StatCounter.postbacksPrefix + postback.statsVersion, default: 0] += 1
                } else {
                    outcomes.append(.duplicate)
                    changes[StatCounter.duplicates, default: 0] += 1
                }
            case .rejected(let refusal):
                outcomes.append(.rejectionRecorded)
                changes[StatCounter.rejectedPrefix + refusal.status, default: 0] += 1
            }
        }
        return (outcomes, changes)
    }

    /// The `VALUES` rows of `postbacks`, one placeholder per column of ``PostbackTable/columns`` (and, with
    /// `counterNames`, a last text column: the counter each postback adds to), their values appended to `binds`.
    static func valueRows(_ postbacks: [AcceptedPostback], counterNames: Bool, binds: inout PostgresBindings) -> String {
        let columns = PostbackTable.columns
        var rows: [String] = []
        rows.reserveCapacity(postbacks.count)
        for postback in postbacks {
            let first = binds.count
            var cells = columns.enumerated().map { column in
                "$\(first + column.offset + 1)::\(PostgresSchema.type(of: column.element.kind))"
            }
            for column in columns { PostgresCells.bind(column.value(postback), kind: column.kind, into: &binds) }
            if counterNames {
                cells.append("$\(first + columns.count + 1)::text")
                binds.append(StatCounter.postbacksPrefix + postback.statsVersion)
            }
            rows.append("(" + cells.joined(separator: ",") + ")")
        }
        return rows.joined(separator: ",")
    }

    /// The insert of `postbacks`, this collector's counters and its rollup rows for the postbacks it stored, as one
    /// statement: the values carry each postback's counter name, the insert returns what it stored, a second insert
    /// in the same statement adds their count per name, and the last add them to every ``PostbackRollup``. Returns the
    /// stored keys, as ``insert(_:collector:)`` does.
    /// `repeats` counts the batch's repeats of its own keys, left out of `postbacks`: with the postbacks the database
    /// already had, they are the batch's duplicates, which the same statement adds to their counter.
    static func insertCounting(_ postbacks: [AcceptedPostback], repeats: Int, collector: String) -> PostgresQuery {
        var binds = PostgresBindings(capacity: postbacks.count * (PostbackTable.columns.count + 1) + 2)
        binds.append(collector)
        let rows = valueRows(postbacks, counterNames: true, binds: &binds)
        binds.append(Int64(repeats))
        let repeated = "$\(binds.count)::bigint"
        let names = PostbackTable.columns.map(\.name).joined(separator: ", ")
        let key = PostbackTable.uniqueKey.map(\.name)
        let join = key.map { "stored.\($0) IS NOT DISTINCT FROM batch.\($0)" }.joined(separator: " AND ")
        let sql = """
            WITH batch (\(names), skan_counter) AS (VALUES \(rows)),
            stored AS (
                INSERT INTO \(PostbackTable.name) (\(names)) SELECT \(names) FROM batch
                ON CONFLICT DO NOTHING RETURNING \(returned.joined(separator: ", "))),
            counted AS (
                INSERT INTO stat_counters (collector, name, value)
                SELECT $1, batch.skan_counter, count(*) FROM stored JOIN batch ON \(join) GROUP BY batch.skan_counter
                UNION ALL
                SELECT $1, '\(StatCounter.duplicates)', duplicates FROM (
                    SELECT \(repeated) + (SELECT count(*) FROM batch) - (SELECT count(*) FROM stored) AS duplicates) AS d
                WHERE duplicates > 0
                ON CONFLICT (collector, name) DO UPDATE SET value = stat_counters.value + excluded.value),
            \(rollupInserts)
            SELECT \(key.joined(separator: ", ")) FROM stored
            """
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    /// The insert of `postbacks`, made from ``PostbackTable/columns``, returning the unique key of each row it
    /// stored: a row whose key is already there (from any collector) is skipped and not returned. The rows it stored
    /// are added to this collector's rollup rows in the same statement.
    static func insert(_ postbacks: [AcceptedPostback], collector: String) -> PostgresQuery {
        var binds = PostgresBindings(capacity: postbacks.count * PostbackTable.columns.count + 1)
        binds.append(collector)
        let rows = valueRows(postbacks, counterNames: false, binds: &binds)
        let key = PostbackTable.uniqueKey.map(\.name).joined(separator: ", ")
        let sql = """
            WITH stored AS (
                INSERT INTO \(PostbackTable.name) (\(PostbackTable.columns.map(\.name).joined(separator: ", "))) VALUES \(rows)
                ON CONFLICT DO NOTHING RETURNING \(returned.joined(separator: ", "))),
            \(rollupInserts)
            SELECT \(key) FROM stored
            """
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    /// What an insert returns of each row it stored: the unique key, and what ``rollupInserts`` count.
    static let returned: [String] = {
        var names = PostbackTable.uniqueKey.map(\.name)
        let kept = PostbackRollup.all.flatMap(\.columns).map(\.name)
        for name in [PostbackTable.receivedAt.name, PostbackTable.sourceIdentifier.name] + kept where !names.contains(name) {
            names.append(name)
        }
        return names
    }()

    /// The CTEs that add the rows of `stored` (an insert's `RETURNING` ``returned``) to this collector's (`$1`) rows of
    /// every ``PostbackRollup``, one row per day and key: several collectors write at once, and rows of their own keep
    /// them from waiting on each other's locks. Sorted, so that two statements lock shared rows in one order.
    static let rollupInserts: String = PostbackRollup.all.enumerated().map { index, rollup in
        let key = rollup.key()
        let groups = (1...key.count).map(String.init).joined(separator: ", ")
        return """
            rolled\(index) AS (
                INSERT INTO \(rollup.name) (\(key.map(\.name).joined(separator: ", ")), collector, \(PostbackRollup.count))
                SELECT \(key.map(\.value).joined(separator: ", ")), $1, count(*) FROM stored
                GROUP BY \(groups) ORDER BY \(groups)
                ON CONFLICT ON CONSTRAINT \(PostgresSchema.rollupKey(rollup))
                DO UPDATE SET \(PostbackRollup.count) = \(rollup.name).\(PostbackRollup.count) + excluded.\(PostbackRollup.count))
            """
    }.joined(separator: ",\n")

    /// The insert of one refusal, every value a client chose cut as the cap says.
    static func insert(_ refusal: RejectedPostback, cap: RejectionCap) -> PostgresQuery {
        let value = { (text: String) in Excerpt.of(text, maximumBytes: cap.maximumValueBytes) }
        var binds = PostgresBindings(capacity: 10)
        binds.append(Timestamp.iso8601(refusal.receivedAt))
        binds.append(refusal.status)
        binds.append(refusal.field.map(value))
        binds.append(Excerpt.of(refusal.reason, maximumBytes: cap.maximumReasonBytes))
        binds.append(refusal.version.map(value))
        binds.append(refusal.transactionID.map(value))
        binds.append(refusal.adNetworkID.map(value))
        binds.append(value(refusal.endpoint))
        binds.append(Int64(refusal.rawBody.count))
        binds.append(ByteBuffer(bytes: refusal.rawBody.prefix(cap.maximumBodyBytes)))
        return PostgresQuery(unsafeSQL: """
            INSERT INTO rejected_postbacks (received_at, status, field, reason, version, transaction_id, ad_network_id,
                endpoint, body_length, raw_body)
            VALUES ($1, $2, $3::text, $4, $5::text, $6::text, $7::text, $8, $9, $10)
            """, binds: binds)
    }

    /// Adds `changes` to this collector's own counter rows; `nil` when nothing changed.
    static func addToCounters(_ changes: [String: Int], collector: String) -> PostgresQuery? {
        let changed = changes.filter { $0.value != 0 }.sorted { $0.key < $1.key }
        guard !changed.isEmpty else { return nil }
        var binds = PostgresBindings(capacity: changed.count * 2 + 1)
        binds.append(collector)
        let rows = changed.enumerated().map { "($1, $\(2 * $0.offset + 2), $\(2 * $0.offset + 3))" }
        for (name, change) in changed {
            binds.append(name)
            binds.append(Int64(change))
        }
        return PostgresQuery(unsafeSQL: """
            INSERT INTO stat_counters (collector, name, value) VALUES \(rows.joined(separator: ", "))
            ON CONFLICT (collector, name) DO UPDATE SET value = stat_counters.value + excluded.value
            """, binds: binds)
    }

    /// The refusal cap's job: deletes the oldest refusals past the cap and moves their count from their status
    /// counters to `rejected_dropped`, in one transaction. One collector at a time runs it (a try-lock: the
    /// others skip), so the fleet never counts one deletion twice. Runs every few seconds while refusals arrive;
    /// public so that a test or an operator can run it now.
    public func enforceRejectionCap() async throws(StoreError) {
        let pending = refusalsPending.withLock { pending in
            defer { pending = false }
            return pending
        }
        guard pending else { return }
        let logger = pool.logger
        let collector = collectorName
        let maximumRows = Int64(cap.maximumRows)
        do {
            try await pool.run(.writeFailed, "cannot keep the refusals within the cap") { client in
                try await client.withTransaction(logger: logger) { connection in
                    let locked = try await connection.query("SELECT pg_try_advisory_xact_lock(\(PostgresSchema.capLock))",
                                                            logger: logger).decode(Bool.self)
                    var isLocked = false
                    for try await value in locked { isLocked = value }
                    guard isLocked else { return }
                    let doomed = try await connection.query("""
                        WITH doomed AS (
                            DELETE FROM rejected_postbacks WHERE id <= (
                                SELECT id FROM rejected_postbacks ORDER BY id DESC OFFSET \(maximumRows) LIMIT 1)
                            RETURNING status)
                        SELECT status, count(*) FROM doomed GROUP BY status
                        """, logger: logger)
                    var changes: [String: Int] = [:]
                    for try await (status, count) in doomed.decode((String, Int).self) {
                        changes[StatCounter.rejectedPrefix + status, default: 0] -= count
                        changes[StatCounter.rejectedDropped, default: 0] += count
                    }
                    if let counters = Self.addToCounters(changes, collector: collector) {
                        try await connection.query(counters, logger: logger)
                    }
                }
            }
        } catch {
            refusalsPending.withLock { $0 = true }
            throw error
        }
    }
}
