import Logging
import NIOCore
import PostgresNIO
import SKANCore
import SKANStore

extension PostgresPostbackStore {
    /// Writes the batch in one transaction: an insert whose `ON CONFLICT DO NOTHING ... RETURNING` tells which
    /// postbacks this transaction stored (the others were stored before, by this collector or another), the
    /// refusals, then this collector's counters; the relay's entries of the postbacks it stored (``OutboxRows``)
    /// follow the insert. Returns once COMMIT has answered (as durable as the server's
    /// `synchronous_commit` makes it). A batch of accepted
    /// postbacks only (the usual one) is a single statement, ``CountingBatchInsert``, between BEGIN and COMMIT.
    public func write(_ entries: [StoreEntry]) async throws(StoreError) -> [StoreOutcome] {
        if entries.isEmpty { return [] }
        // A key repeated inside the batch is a duplicate of its first occurrence: only that one goes to the
        // database, which decides between it and every other collector.
        // Each entry's key is read once: `firsts` holds it for the first occurrence of each key, nil for a repeat or
        // a refusal.
        var seen: Set<[ColumnValue]> = []
        var firstKeys: [[ColumnValue]?] = []
        firstKeys.reserveCapacity(entries.count)
        var accepted: [(key: [ColumnValue], postback: AcceptedPostback)] = []
        var rejected: [RejectedPostback] = []
        for entry in entries {
            switch entry {
            case .accepted(let postback):
                let key = PostbackTable.uniqueKey.map { $0.value(postback) }
                let isFirst = seen.insert(key).inserted
                firstKeys.append(isFirst ? key : nil)
                if isFirst { accepted.append((key, postback)) }
            case .rejected(let refusal):
                firstKeys.append(nil)
                rejected.append(refusal)
            }
        }
        let logger = pool.logger
        let collector = collectorName
        let firsts = firstKeys
        // In key order, so that collectors given the same postbacks lock their keys in one order (see BatchRows);
        // `firsts` maps what was stored back to the entries' own order.
        let rows = BatchRows(accepted)
        // The common batch (accepted postbacks only) is one statement that also adds the counters; the rest insert,
        // record the refusals, then add the counters. Either way in a transaction of our own, ended by a COMMIT whose
        // answer comes after the commit is durable: a statement in PostgreSQL's implicit transaction is answered
        // before its commit (which follows at the Sync), so its rows could acknowledge postbacks that a failed
        // commit then took back.
        let counting = rejected.isEmpty ? CountingBatchInsert(collector: collector, entries: entries.count, rows: rows) : nil
        let insert = accepted.isEmpty || counting != nil ? nil : BatchInsert(collector: collector, rows: rows)
        let refusals = rejected.map { Self.insert($0, cap: cap) }
        // The relay's entries go in the same transaction, for the postbacks it stored only.
        let queued = OutboxRows(accepted)
        let outcomes = try await pool.run(.writeFailed, "cannot store \(entries.count) postbacks") { client in
            // A deadlock's victim was rolled back whole: it runs again (DeadlockRetry).
            try await DeadlockRetry.run(logger: logger) { try await client.withTransaction(logger: logger) { connection in
                var stored: Set<[ColumnValue]> = []
                if let counting {
                    for try await key in try await connection.execute(counting, logger: logger) { stored.insert(key) }
                    if let enqueue = queued?.insert(stored: stored) { try await connection.query(enqueue, logger: logger) }
                    let outcomes = Self.outcomes(firsts, entries, stored: stored)
                    try await Self.keepRepeats(of: entries, outcomes, collector: collector,
                                               connection: connection, logger: logger)
                    return outcomes
                }
                if let insert {
                    for try await key in try await connection.execute(insert, logger: logger) { stored.insert(key) }
                }
                if let enqueue = queued?.insert(stored: stored) { try await connection.query(enqueue, logger: logger) }
                for refusal in refusals { try await connection.query(refusal, logger: logger) }
                let outcomes = Self.outcomes(firsts, entries, stored: stored)
                try await Self.keepRepeats(of: entries, outcomes, collector: collector,
                                           connection: connection, logger: logger)
                if let counters = Self.addToCounters(Self.changes(entries, outcomes), collector: collector) {
                    try await connection.query(counters, logger: logger)
                }
                return outcomes
            } }
        }
        if !rejected.isEmpty { refusalsPending.withLock { $0 = true } }
        return outcomes
    }

    /// Each entry's outcome: stored when it was the first of its key (`firstKeys`) and the insert stored that key.
    static func outcomes(_ firstKeys: [[ColumnValue]?], _ entries: [StoreEntry], stored: Set<[ColumnValue]>) -> [StoreOutcome] {
        zip(firstKeys, entries).map { key, entry in
            if case .rejected = entry { return .rejectionRecorded }
            guard let key, stored.contains(key) else { return .duplicate }
            return .stored
        }
    }

    /// The counter changes of a batch's outcomes, for a batch the writer counts itself (one with refusals; the usual
    /// batch's statement counts its own).
    static func changes(_ entries: [StoreEntry], _ outcomes: [StoreOutcome]) -> [String: Int] {
        var changes: [String: Int] = [:]
        for (entry, outcome) in zip(entries, outcomes) {
            switch (entry, outcome) {
            case (.accepted(let postback), .stored): changes[StatCounter.postbacksPrefix + postback.statsVersion, default: 0] += 1
            case (.accepted, _): changes[StatCounter.duplicates, default: 0] += 1
            case (.rejected(let refusal), _): changes[StatCounter.rejectedPrefix + refusal.status, default: 0] += 1
            }
        }
        return changes
    }

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
