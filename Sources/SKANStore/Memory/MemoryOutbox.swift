import Foundation

/// The memory engine's outbox: the reference the SQL engines are held to, in plain Swift.
struct MemoryOutboxTable: Sendable {
    struct Row: Sendable {
        var entry: OutboxEntry
        var dueAt: Int64
        var dead = false
        var lastError: String?
    }

    private(set) var rows: [Int64: Row] = [:]
    private var nextID: Int64 = 1

    mutating func enqueue(_ items: [OutboxItem], now: Date) {
        for item in items {
            rows[nextID] = Row(entry: OutboxEntry(id: nextID, item: item, attempts: 0, createdAt: now),
                               dueAt: now.outboxMilliseconds)
            nextID += 1
        }
    }

    mutating func claim(destination: String, limit: Int, now: Date, leaseUntil: Date) -> [OutboxEntry] {
        let now = now.outboxMilliseconds
        let due = rows.values.filter { $0.entry.item.destination == destination && !$0.dead && $0.dueAt <= now }
            .sorted { ($0.dueAt, $0.entry.id) < ($1.dueAt, $1.entry.id) }.prefix(max(limit, 0))
        // The lease is a later due time: a sender that dies leaves the entry due again when it ends.
        for row in due { rows[row.entry.id]?.dueAt = leaseUntil.outboxMilliseconds }
        return due.map(\.entry)
    }

    mutating func settle(_ settlements: [OutboxSettlement]) {
        for settlement in settlements {
            switch settlement {
            case .sent(let id):
                rows[id] = nil
            case .retry(let id, let at, let error):
                rows[id]?.dueAt = at.outboxMilliseconds
                rows[id]?.entry.attempts += 1
                rows[id]?.lastError = error
            case .dead(let id, let error):
                rows[id]?.dead = true
                rows[id]?.entry.attempts += 1
                rows[id]?.lastError = error
            case .release(let id, let at):
                rows[id]?.dueAt = at.outboxMilliseconds
            }
        }
    }

    func depths() -> [OutboxDepth] {
        var depths: [String: OutboxDepth] = [:]
        for row in rows.values.sorted(by: { $0.entry.id < $1.entry.id }) {
            let name = row.entry.item.destination
            var depth = depths[name] ?? OutboxDepth(destination: name, pending: 0, dead: 0, oldest: nil, lastError: nil)
            if row.dead {
                depth.dead += 1
            } else {
                depth.pending += 1
                depth.oldest = min(depth.oldest ?? row.entry.createdAt, row.entry.createdAt)
            }
            // The newest entry's error that has one: rows go in id order.
            if let error = row.lastError { depth.lastError = error }
            depths[name] = depth
        }
        return depths.values.sorted { $0.destination < $1.destination }
    }

    /// The newest `limit` dead letters, newest first.
    func deadLetters(limit: Int) -> [DeadLetter] {
        rows.values.filter(\.dead).sorted { $0.entry.id > $1.entry.id }.prefix(max(limit, 0)).map { row in
            DeadLetter(id: row.entry.id, destination: row.entry.item.destination, attempts: row.entry.attempts,
                       lastError: row.lastError, createdAt: row.entry.createdAt)
        }
    }

    mutating func reviveDead(destination: String?, now: Date) -> Int {
        var revived = 0
        for (id, row) in rows where row.dead && (destination == nil || row.entry.item.destination == destination) {
            rows[id]?.dead = false
            rows[id]?.entry.attempts = 0
            rows[id]?.dueAt = now.outboxMilliseconds
            revived += 1
        }
        return revived
    }
}

extension MemoryPostbackStore: Outbox {
    public func claim(destination: String, limit: Int, now: Date, leaseUntil: Date) async throws(StoreError) -> [OutboxEntry] {
        try withOpen { $0.outbox.claim(destination: destination, limit: limit, now: now, leaseUntil: leaseUntil) }
    }

    public func settle(_ settlements: [OutboxSettlement]) async throws(StoreError) {
        try withOpen { $0.outbox.settle(settlements) }
    }

    public func depths() async throws(StoreError) -> [OutboxDepth] {
        try withOpen { $0.outbox.depths() }
    }

    public func reviveDead(destination: String?, now: Date) async throws(StoreError) -> Int {
        try withOpen { $0.outbox.reviveDead(destination: destination, now: now) }
    }

    public func enqueue(_ items: [OutboxItem], now: Date) async throws(StoreError) {
        try withOpen { $0.outbox.enqueue(items, now: now) }
    }

    private func withOpen<T>(_ body: (inout State) -> T) throws(StoreError) -> T {
        try state.withLock { state throws(StoreError) in
            guard !state.isClosed else { throw StoreError(.closed, "the store is closed") }
            return body(&state)
        }
    }
}
