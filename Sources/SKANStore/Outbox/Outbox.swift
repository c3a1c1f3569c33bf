import Foundation

/// The relay's durable queue: one entry per accepted postback per destination that wants it, written by the
/// engine in the transaction that stores the postback (from ``AcceptedPostback/outbox``), so that an acknowledged
/// postback is never missing from it and a duplicate or refused one is never in it.
///
/// Delivery claims entries with a lease: a claimed entry is not handed out again until the lease ends, so several
/// collectors sharing one database never send one entry at once, and an entry whose sender died is sent again
/// once its lease runs out. Times are whole milliseconds since 1970.
public protocol Outbox: Sendable {
    /// Up to `limit` entries for `destination` due at `now` (not dead, retry time reached, no live lease), oldest
    /// first, each now leased until `leaseUntil`.
    func claim(destination: String, limit: Int, now: Date, leaseUntil: Date) async throws(StoreError) -> [OutboxEntry]

    /// Records what happened to claimed entries, in one transaction: sent ones leave the outbox, retried ones wait
    /// for their time, dead ones are kept apart until an operator revives them.
    func settle(_ settlements: [OutboxSettlement]) async throws(StoreError)

    /// Per destination: entries waiting, dead ones, the oldest waiting and the last error.
    func depths() async throws(StoreError) -> [OutboxDepth]

    /// Makes dead entries (of `destination`, or of all when `nil`) due again at `now`, their attempts reset;
    /// returns how many.
    func reviveDead(destination: String?, now: Date) async throws(StoreError) -> Int

    /// Queues items outside the write path (a replay of stored postbacks to a new destination), due at `now`.
    func enqueue(_ items: [OutboxItem], now: Date) async throws(StoreError)
}

/// One postback to send to one destination, as the write path queues it.
public struct OutboxItem: Sendable, Hashable {
    /// The destination's name in the relay configuration.
    public var destination: String
    /// The same on every attempt of this postback to this destination (the receiver drops repeats by it).
    public var idempotencyKey: String
    /// The bytes to send.
    public var body: [UInt8]

    /// Makes an item.
    public init(destination: String, idempotencyKey: String, body: [UInt8]) {
        self.destination = destination
        self.idempotencyKey = idempotencyKey
        self.body = body
    }
}

/// A claimed entry.
public struct OutboxEntry: Sendable, Hashable {
    /// The engine's id of the entry.
    public var id: Int64
    /// What to send, and where.
    public var item: OutboxItem
    /// Attempts already made (0 on the first).
    public var attempts: Int
    /// When it was queued.
    public var createdAt: Date

    /// Makes an entry.
    public init(id: Int64, item: OutboxItem, attempts: Int, createdAt: Date) {
        self.id = id
        self.item = item
        self.attempts = attempts
        self.createdAt = createdAt
    }
}

/// What became of one claimed entry.
public enum OutboxSettlement: Sendable, Hashable {
    /// Delivered: the entry leaves the outbox.
    case sent(id: Int64)
    /// To be tried again at `at`, after an attempt that failed with `error`.
    case retry(id: Int64, at: Date, error: String)
    /// Given up: kept as a dead letter, with the last error.
    case dead(id: Int64, error: String)
    /// Not attempted (delivery stopped): due again at `at`, its attempts unchanged.
    case release(id: Int64, at: Date)

    /// The entry it settles.
    public var id: Int64 {
        switch self {
        case .sent(let id), .retry(let id, _, _), .dead(let id, _), .release(let id, _): id
        }
    }
}

/// What waits for one destination.
public struct OutboxDepth: Sendable, Hashable {
    /// The destination's name.
    public var destination: String
    /// Entries waiting (due or not, leased or not).
    public var pending: Int
    /// Dead letters kept.
    public var dead: Int
    /// When the oldest waiting entry was queued.
    public var oldest: Date?
    /// The last error of the newest entry that failed an attempt, when one did.
    public var lastError: String?

    /// Makes a depth.
    public init(destination: String, pending: Int, dead: Int, oldest: Date?, lastError: String?) {
        self.destination = destination
        self.pending = pending
        self.dead = dead
        self.oldest = oldest
        self.lastError = lastError
    }
}

/// What decides, for each accepted postback before it is written, which destinations get it and with which body.
/// The collector's pipeline asks it on the request's thread; the engine then only inserts what it said.
public protocol OutboxRouting: Sendable {
    /// The items to queue with `postback`; empty when no destination wants it.
    func items(for postback: AcceptedPostback, arrival: Arrival) -> [OutboxItem]
}

/// What the HTTP layer knew of a postback's request beyond its body, for the members a relay destination adds.
public struct Arrival: Sendable, Hashable {
    /// The device's address, without port, as the HTTP layer resolved it (the peer's, or the right-most untrusted
    /// `X-Forwarded-For` entry behind a trusted proxy); `nil` when it is not known.
    public var clientAddress: String?
    /// The `User-Agent` header as received.
    public var userAgent: String?

    /// Makes an arrival.
    public init(clientAddress: String? = nil, userAgent: String? = nil) {
        self.clientAddress = clientAddress
        self.userAgent = userAgent
    }
}

extension Date {
    /// Whole milliseconds since 1970, as the outbox stores times. Public for the engines.
    public var outboxMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The date `milliseconds` after 1970.
    public init(outboxMilliseconds milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

/// A dead letter as people may see it: which entry, where to, how often tried, why it failed and when it was
/// queued; never its body.
public struct DeadLetter: Sendable, Hashable {
    /// The engine's id of the entry.
    public var id: Int64
    /// The destination's name.
    public var destination: String
    /// Attempts made.
    public var attempts: Int
    /// The last attempt's error, as the relay wrote it (a status and a short reason, never a body).
    public var lastError: String?
    /// When it was queued.
    public var createdAt: Date

    /// Makes a dead letter.
    public init(id: Int64, destination: String, attempts: Int, lastError: String?, createdAt: Date) {
        self.id = id
        self.destination = destination
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
    }

    /// The statement both SQL engines run: the newest dead letters first (`dead` is an integer 0 or 1 on SQLite, a
    /// boolean on PostgreSQL; both read it as a condition).
    public static func statement(limit placeholder: String) -> String {
        "SELECT id, destination, attempts, last_error, created_at FROM relay_outbox WHERE dead ORDER BY id DESC LIMIT \(placeholder)"
    }
}
