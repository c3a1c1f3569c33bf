import Foundation
import NIOCore
import PostgresNIO
import SKANStore

/// The relay's outbox in the collectors' PostgreSQL database (``Outbox``), shared by every collector of a fleet.
///
/// Entries are written by the postback insert's transaction (``PostgresPostbackStore/write(_:)``, ``OutboxRows``),
/// only for the postbacks that transaction stored. A claim takes due entries with `FOR UPDATE SKIP LOCKED` and moves
/// their due time to the lease's end in the same statement, so two collectors claiming at once never get one entry:
/// the second skips the rows the first has locked, and once the first commits the rows are no longer due. A
/// collector that dies leaves its entries due again when their lease ends.
enum PostgresOutbox {
    /// Migration `0007-relay-outbox`. `due_at` is the next time an entry may be claimed: its retry time, or the end
    /// of its lease while claimed. The partial index serves the claim, which reads one destination's live entries
    /// in due order; dead letters stay out of it.
    static let schema = [
        """
        CREATE TABLE relay_outbox (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            destination text NOT NULL,
            idempotency_key text NOT NULL,
            body bytea NOT NULL,
            created_at bigint NOT NULL,
            due_at bigint NOT NULL,
            attempts bigint NOT NULL DEFAULT 0,
            dead boolean NOT NULL DEFAULT false,
            last_error text
        )
        """,
        "CREATE INDEX relay_outbox_due ON relay_outbox (destination, due_at, id) WHERE NOT dead",
    ]

    /// Per destination, what waits and what is dead (``Outbox/depths()``); the store and its reader both read it.
    static func depths(_ pool: PostgresPool) async throws(StoreError) -> [OutboxDepth] {
        let logger = pool.logger
        return try await pool.run(.readFailed, "cannot read the relay outbox") { client in
            // Names sorted by their bytes (COLLATE "C"), as the other engines sort them.
            let rows = try await client.query("""
                SELECT destination, count(*) FILTER (WHERE NOT dead), count(*) FILTER (WHERE dead),
                    min(created_at) FILTER (WHERE NOT dead),
                    (SELECT last_error FROM relay_outbox AS e WHERE e.destination = o.destination
                        AND e.last_error IS NOT NULL ORDER BY e.id DESC LIMIT 1)
                FROM relay_outbox AS o GROUP BY destination ORDER BY destination COLLATE "C"
                """, logger: logger)
            var depths: [OutboxDepth] = []
            for try await (name, pending, dead, oldest, error) in rows.decode((String, Int64, Int64, Int64?, String?).self) {
                depths.append(OutboxDepth(destination: name, pending: Int(pending), dead: Int(dead),
                                          oldest: oldest.map(Date.init(outboxMilliseconds:)), lastError: error))
            }
            return depths
        }
    }

    /// The newest `limit` dead letters (``PostbackReader/deadLetters(limit:)``).
    static func deadLetters(_ pool: PostgresPool, limit: Int) async throws(StoreError) -> [DeadLetter] {
        let logger = pool.logger
        return try await pool.run(.readFailed, "cannot read the relay outbox") { client in
            var binds = PostgresBindings(capacity: 1)
            binds.append(Int64(max(limit, 0)))
            let rows = try await client.query(PostgresQuery(unsafeSQL: DeadLetter.statement(limit: "$1"), binds: binds),
                                              logger: logger)
            var letters: [DeadLetter] = []
            for try await (id, name, attempts, error, createdAt) in rows.decode((Int64, String, Int64, String?, Int64).self) {
                letters.append(DeadLetter(id: id, destination: name, attempts: Int(attempts), lastError: error,
                                          createdAt: Date(outboxMilliseconds: createdAt)))
            }
            return letters
        }
    }

    /// Inserts `items`, each queued (and due) at its time, in the order given: a statement whose text never
    /// changes with the number of items (arrays, one per column).
    static func insert(_ items: [(item: OutboxItem, at: Int64)]) -> PostgresQuery {
        var destinations = PostgresColumnArray(kind: .text, capacity: items.count)
        var keys = PostgresColumnArray(kind: .text, capacity: items.count)
        var bodies = PostgresColumnArray(kind: .blob, capacity: items.count)
        var times = PostgresColumnArray(kind: .integer, capacity: items.count)
        for (item, at) in items {
            destinations.append(.text(item.destination))
            keys.append(.text(item.idempotencyKey))
            bodies.append(.blob(item.body))
            times.append(.integer(at))
        }
        var binds = PostgresBindings(capacity: 4)
        binds.append(destinations)
        binds.append(keys)
        binds.append(bodies)
        binds.append(times)
        return PostgresQuery(unsafeSQL: """
            INSERT INTO relay_outbox (destination, idempotency_key, body, created_at, due_at)
            SELECT destination, idempotency_key, body, created_at, created_at
            FROM unnest($1::text[], $2::text[], $3::bytea[], $4::bigint[]) WITH ORDINALITY
                AS item (destination, idempotency_key, body, created_at, place)
            ORDER BY place
            """, binds: binds)
    }
}

/// The relay's entries of a batch, held by the unique key of the postback they go with: the write queues only
/// those of the postbacks its insert stored, so a duplicate (of this batch, or of a row another collector stored
/// first) queues nothing.
struct OutboxRows: Sendable {
    private let pending: [(key: [ColumnValue], items: [OutboxItem], at: Int64)]

    /// The entries of `accepted`; `nil` when none has any (no relay, or no destination wants them): the write then
    /// runs no extra statement.
    init?(_ accepted: [(key: [ColumnValue], postback: AcceptedPostback)]) {
        let pending = accepted.compactMap { key, postback in
            postback.outbox.isEmpty ? nil : (key, postback.outbox, postback.receivedAt.outboxMilliseconds)
        }
        guard !pending.isEmpty else { return nil }
        self.pending = pending
    }

    /// The insert of the entries of the postbacks whose key is in `stored`, or `nil` when there are none.
    func insert(stored: Set<[ColumnValue]>) -> PostgresQuery? {
        let items = pending.filter { stored.contains($0.key) }.flatMap { row in row.items.map { ($0, row.at) } }
        return items.isEmpty ? nil : PostgresOutbox.insert(items)
    }
}

extension PostgresPostbackStore: Outbox {
    public func claim(destination: String, limit: Int, now: Date, leaseUntil: Date) async throws(StoreError) -> [OutboxEntry] {
        let logger = pool.logger
        let (now, until, limit) = (now.outboxMilliseconds, leaseUntil.outboxMilliseconds, Int64(max(limit, 0)))
        return try await pool.run(.writeFailed, "cannot claim outbox entries") { client in
            // MATERIALIZED: the locking select runs once, whatever plan the update gets.
            let rows = try await client.query("""
                WITH due AS MATERIALIZED (
                    SELECT id, due_at FROM relay_outbox
                    WHERE destination = \(destination) AND NOT dead AND due_at <= \(now)
                    ORDER BY due_at, id LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED)
                UPDATE relay_outbox AS o SET due_at = \(until) FROM due WHERE o.id = due.id
                RETURNING o.id, o.idempotency_key, o.body, o.attempts, o.created_at, due.due_at
                """, logger: logger)
            var claimed: [(due: Int64, entry: OutboxEntry)] = []
            for try await (id, key, body, attempts, createdAt, due) in rows.decode((Int64, String, ByteBuffer, Int64, Int64, Int64).self) {
                let item = OutboxItem(destination: destination, idempotencyKey: key, body: Array(body.readableBytesView))
                claimed.append((due, OutboxEntry(id: id, item: item, attempts: Int(attempts),
                                                 createdAt: Date(outboxMilliseconds: createdAt))))
            }
            // RETURNING follows no order: the claim's is due time, then id, as on every engine.
            return claimed.sorted { ($0.due, $0.entry.id) < ($1.due, $1.entry.id) }.map(\.entry)
        }
    }

    public func settle(_ settlements: [OutboxSettlement]) async throws(StoreError) {
        guard !settlements.isEmpty else { return }
        var sent: [Int64] = []
        var retried: (ids: [Int64], at: [Int64], errors: [String]) = ([], [], [])
        var dead: (ids: [Int64], errors: [String]) = ([], [])
        var released: (ids: [Int64], at: [Int64]) = ([], [])
        for settlement in settlements {
            switch settlement {
            case .sent(let id): sent.append(id)
            case .retry(let id, let at, let error):
                retried.ids.append(id)
                retried.at.append(at.outboxMilliseconds)
                retried.errors.append(error)
            case .dead(let id, let error):
                dead.ids.append(id)
                dead.errors.append(error)
            case .release(let id, let at):
                released.ids.append(id)
                released.at.append(at.outboxMilliseconds)
            }
        }
        let ids = settlements.map(\.id).sorted()
        let (logger, sentIDs, retry, deadLetters, release) = (pool.logger, sent, retried, dead, released)
        try await pool.run(.writeFailed, "cannot settle outbox entries") { client in
            try await client.withTransaction(logger: logger) { connection in
                // Rows locked in id order first: two collectors settling one entry (the first's lease ran out) then
                // wait for each other in one order, never in a cycle across the statements below.
                try await connection.query("SELECT id FROM relay_outbox WHERE id = ANY(\(ids)) ORDER BY id FOR UPDATE",
                                           logger: logger)
                if !sentIDs.isEmpty {
                    try await connection.query("DELETE FROM relay_outbox WHERE id = ANY(\(sentIDs))", logger: logger)
                }
                if !retry.ids.isEmpty {
                    try await connection.query("""
                        UPDATE relay_outbox AS o SET due_at = s.at, attempts = o.attempts + 1, last_error = s.error
                        FROM unnest(\(retry.ids)::bigint[], \(retry.at)::bigint[], \(retry.errors)::text[]) AS s (id, at, error)
                        WHERE o.id = s.id
                        """, logger: logger)
                }
                if !deadLetters.ids.isEmpty {
                    try await connection.query("""
                        UPDATE relay_outbox AS o SET dead = true, attempts = o.attempts + 1, last_error = s.error
                        FROM unnest(\(deadLetters.ids)::bigint[], \(deadLetters.errors)::text[]) AS s (id, error)
                        WHERE o.id = s.id
                        """, logger: logger)
                }
                if !release.ids.isEmpty {
                    try await connection.query("""
                        UPDATE relay_outbox AS o SET due_at = s.at
                        FROM unnest(\(release.ids)::bigint[], \(release.at)::bigint[]) AS s (id, at)
                        WHERE o.id = s.id
                        """, logger: logger)
                }
            }
        }
    }

    public func depths() async throws(StoreError) -> [OutboxDepth] {
        try await PostgresOutbox.depths(pool)
    }

    public func reviveDead(destination: String?, now: Date) async throws(StoreError) -> Int {
        let logger = pool.logger
        let now = now.outboxMilliseconds
        return try await pool.run(.writeFailed, "cannot revive dead letters") { client in
            let rows = try await client.query("""
                WITH revived AS (
                    UPDATE relay_outbox SET dead = false, attempts = 0, due_at = \(now)
                    WHERE dead AND (\(destination)::text IS NULL OR destination = \(destination))
                    RETURNING 1)
                SELECT count(*) FROM revived
                """, logger: logger)
            var count: Int64 = 0
            for try await value in rows.decode(Int64.self) { count = value }
            return Int(count)
        }
    }

    public func enqueue(_ items: [OutboxItem], now: Date) async throws(StoreError) {
        guard !items.isEmpty else { return }
        let logger = pool.logger
        let insert = PostgresOutbox.insert(items.map { ($0, now.outboxMilliseconds) })
        try await pool.run(.writeFailed, "cannot queue outbox entries") { client in
            try await client.query(insert, logger: logger)
        }
    }
}
