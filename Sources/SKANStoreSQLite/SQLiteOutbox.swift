import Foundation
import GRDB
import SKANStore

/// The relay's outbox in the collector's SQLite file (``Outbox``). Entries are written by the postback insert's
/// transaction (``SQLitePostbackStore/write(_:)``); claims and settlements are short transactions of their own on
/// the same writer, never holding it across a delivery.
enum SQLiteOutbox {
    /// Migration `0009-relay-outbox`. `due_at` is the next time an entry may be claimed: its retry time, or the end
    /// of its lease while claimed (a sender that dies leaves it due again then). The index serves the claim, which
    /// reads one destination's live entries in due order.
    static let schema = """
        CREATE TABLE relay_outbox (
            id INTEGER PRIMARY KEY,
            destination TEXT NOT NULL,
            idempotency_key TEXT NOT NULL,
            body BLOB NOT NULL,
            created_at INTEGER NOT NULL,
            due_at INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            dead INTEGER NOT NULL DEFAULT 0,
            last_error TEXT
        );
        CREATE INDEX relay_outbox_due ON relay_outbox (destination, dead, due_at)
        """

    /// Migration `0016-relay-outbox-postback`: an entry whose body is its postback's received bytes (every
    /// destination that takes postbacks as received) names the postback instead of holding a copy. The copy was the
    /// larger part of an entry, written with the postback, rewritten by its lease and deleted when sent: the relay's
    /// bytes per postback (Benchmarks/README.md, "Relay"). Before retention deletes a postback or empties its body,
    /// the entries still naming it take a copy (``keepBodies(ofPostbacks:through:in:)``).
    static let postbackReference = """
        ALTER TABLE relay_outbox ADD COLUMN postback_id INTEGER;
        CREATE INDEX relay_outbox_postback ON relay_outbox (postback_id) WHERE postback_id IS NOT NULL
        """

    static let insert = """
        INSERT INTO relay_outbox (destination, idempotency_key, body, created_at, due_at, postback_id)
        VALUES (?, ?, ?, ?, ?, ?)
        """

    /// Per destination, what waits and what is dead (``Outbox/depths()``); the store and its reader both read it.
    static func depths(_ db: Database) throws -> [OutboxDepth] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT destination, sum(dead = 0), sum(dead), min(CASE WHEN dead = 0 THEN created_at END),
                (SELECT last_error FROM relay_outbox AS e WHERE e.destination = o.destination
                    AND e.last_error IS NOT NULL ORDER BY e.id DESC LIMIT 1)
            FROM relay_outbox AS o GROUP BY destination ORDER BY destination
            """)
        return rows.map { row in
            OutboxDepth(destination: row[0], pending: row[1], dead: row[2],
                        oldest: (row[3] as Int64?).map(Date.init(outboxMilliseconds:)), lastError: row[4])
        }
    }

    /// The newest `limit` dead letters (``PostbackReader/deadLetters(limit:)``).
    static func deadLetters(limit: Int, in db: Database) throws -> [DeadLetter] {
        try Row.fetchAll(db, sql: DeadLetter.statement(limit: "?"), arguments: [limit]).map { row in
            DeadLetter(id: row[0], destination: row[1], attempts: row[2], lastError: row[3],
                       createdAt: Date(outboxMilliseconds: row[4]))
        }
    }

    /// `?, ?, …`, `count` times: one statement for a batch's ids (a batch is far below SQLite's 32,766 variables).
    static func placeholders(_ count: Int) -> String {
        String(repeating: "?, ", count: max(count - 1, 0)) + "?"
    }

    /// One insert per item, inside the caller's transaction. An item whose body is `rawBody`, the stored postback
    /// `postbackID`'s received bytes, names that postback rather than copying them.
    static func enqueue(_ items: [OutboxItem], now: Date, postbackID: Int64? = nil, rawBody: [UInt8] = [],
                        in db: Database) throws {
        let statement = try db.cachedStatement(sql: insert)
        let now = now.outboxMilliseconds
        for item in items {
            if let postbackID, item.body == rawBody {
                try statement.execute(arguments: [item.destination, item.idempotencyKey, Data(), now, now, postbackID])
            } else {
                try statement.execute(arguments: [item.destination, item.idempotencyKey, Data(item.body), now, now, nil])
            }
        }
    }

    /// Copies the received bytes of postbacks `first` through `last` into the entries that name them, before
    /// retention deletes those postbacks or empties their bodies (in the same transaction): an entry never loses its
    /// body, however long its destination is down.
    static func keepBodies(ofPostbacks first: Int64, through last: Int64, in db: Database) throws {
        try db.execute(sql: """
            UPDATE relay_outbox SET body = (SELECT raw_body FROM \(PostbackTable.name) WHERE id = relay_outbox.postback_id),
                postback_id = NULL
            WHERE postback_id BETWEEN ? AND ?
            """, arguments: [first, last])
    }
}

extension SQLitePostbackStore: Outbox {
    public func claim(destination: String, limit: Int, now: Date, leaseUntil: Date) async throws(StoreError) -> [OutboxEntry] {
        try await outboxWrite("claim outbox entries", synced: false) { db in
            // Cached: a claim runs for every batch the relay sends, and preparing it costs more than running it.
            let due = try db.cachedStatement(sql: """
                SELECT o.id, o.idempotency_key, CASE WHEN o.postback_id IS NULL THEN o.body ELSE p.raw_body END,
                    o.attempts, o.created_at
                FROM relay_outbox AS o LEFT JOIN \(PostbackTable.name) AS p ON p.id = o.postback_id
                WHERE o.destination = ? AND o.dead = 0 AND o.due_at <= ? ORDER BY o.due_at, o.id LIMIT ?
                """)
            let rows = try Row.fetchAll(due, arguments: [destination, now.outboxMilliseconds, limit])
            var entries: [OutboxEntry] = []
            var orphans: [Int64] = []
            for row in rows {
                // No body: the postback it names was deleted other than by retention (which hands bodies over
                // first), by hand. Nothing is left to send; kept as a dead letter that says so.
                guard let body = row[2] as Data? else {
                    orphans.append(row[0])
                    continue
                }
                entries.append(OutboxEntry(id: row[0], item: OutboxItem(destination: destination, idempotencyKey: row[1],
                                                                        body: [UInt8](body)),
                                           attempts: row[3], createdAt: Date(outboxMilliseconds: row[4])))
            }
            if !orphans.isEmpty {
                try db.execute(sql: """
                    UPDATE relay_outbox SET dead = 1, last_error = 'its postback is no longer stored'
                    WHERE id IN (\(SQLiteOutbox.placeholders(orphans.count)))
                    """, arguments: StatementArguments(orphans))
            }
            // The lease in one statement for the batch: an UPDATE per entry cost as much again in statement overhead
            // as its row work (Benchmarks/README.md, "Relay").
            if !entries.isEmpty {
                try db.cachedStatement(sql: "UPDATE relay_outbox SET due_at = ? WHERE id IN (\(SQLiteOutbox.placeholders(entries.count)))")
                    .execute(arguments: StatementArguments([leaseUntil.outboxMilliseconds] + entries.map(\.id)))
            }
            return entries
        }
    }

    public func settle(_ settlements: [OutboxSettlement]) async throws(StoreError) {
        guard !settlements.isEmpty else { return }
        try await outboxWrite("settle outbox entries", synced: false) { db in
            // What was sent, nearly all of a batch, leaves in one statement.
            let sent = settlements.compactMap { settlement -> Int64? in
                if case .sent(let id) = settlement { id } else { nil }
            }
            if !sent.isEmpty {
                try db.cachedStatement(sql: "DELETE FROM relay_outbox WHERE id IN (\(SQLiteOutbox.placeholders(sent.count)))")
                    .execute(arguments: StatementArguments(sent))
            }
            for settlement in settlements {
                switch settlement {
                case .sent:
                    break
                case .retry(let id, let at, let error):
                    try db.cachedStatement(sql: "UPDATE relay_outbox SET due_at = ?, attempts = attempts + 1, last_error = ? WHERE id = ?")
                        .execute(arguments: [at.outboxMilliseconds, error, id])
                case .dead(let id, let error):
                    try db.cachedStatement(sql: "UPDATE relay_outbox SET dead = 1, attempts = attempts + 1, last_error = ? WHERE id = ?")
                        .execute(arguments: [error, id])
                case .release(let id, let at):
                    try db.cachedStatement(sql: "UPDATE relay_outbox SET due_at = ? WHERE id = ?")
                        .execute(arguments: [at.outboxMilliseconds, id])
                }
            }
        }
    }

    public func depths() async throws(StoreError) -> [OutboxDepth] {
        do {
            return try await database.read(SQLiteOutbox.depths)
        } catch {
            throw StoreError(.readFailed, "cannot read the relay outbox: \(error)")
        }
    }

    public func reviveDead(destination: String?, now: Date) async throws(StoreError) -> Int {
        try await outboxWrite("revive dead letters") { db in
            try db.execute(sql: """
                UPDATE relay_outbox SET dead = 0, attempts = 0, due_at = ? WHERE dead = 1 AND (? IS NULL OR destination = ?)
                """, arguments: [now.outboxMilliseconds, destination, destination])
            return db.changesCount
        }
    }

    public func enqueue(_ items: [OutboxItem], now: Date) async throws(StoreError) {
        try await outboxWrite("queue outbox entries") { db in try SQLiteOutbox.enqueue(items, now: now, in: db) }
    }

    /// Runs `body` in a write transaction of its own. An unsynced one (a claim, a settlement) commits without
    /// syncing the WAL even when postbacks are stored with `synchronous = FULL`: losing it to a power cut only sends
    /// an entry again, with its key, and the next postback commit's sync covers it anyway. Two syncs per batch were
    /// a tenth of the relay's cost (Benchmarks/README.md, "Relay").
    private func outboxWrite<T: Sendable>(_ what: String, synced: Bool = true,
                                          _ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        let value: T
        do {
            value = try await outboxTransaction(synced: synced, body)
        } catch {
            throw StoreError(.writeFailed, "cannot \(what): \(error)")
        }
        // The relay's commits grow the WAL as postbacks do: a tail a checkpoint left for the writer is copied after
        // them too, or a process that only relays (`skan relay`, a drain) would stop checkpointing.
        await checkpointIfBehind()
        return value
    }

    private func outboxTransaction<T: Sendable>(synced: Bool, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if synced || durability == .normal { return try await database.write(body) }
        let restore = "PRAGMA synchronous = \(durability.pragma)"
        return try await database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            let outcome = Result { () throws -> T in
                var value: T?
                try db.inTransaction {
                    value = try body(db)
                    return .commit
                }
                return value!
            }
            // Restored before anything else runs on the writer: the next postback commit syncs again.
            try db.execute(sql: restore)
            return try outcome.get()
        }
    }
}
