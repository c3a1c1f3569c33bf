/// The read side of a store: what reports, exports and dashboards ask of it, in neutral terms. Each engine
/// renders the requests in its own dialect; streaming calls hand over one row at a time, so memory stays flat
/// however large the table is. The calls are `async` because a server engine waits on its network; `each` is
/// called on the caller's task, one row after the other.
public protocol PostbackReader: HostedStore {
    /// Runs an aggregate and hands over its rows in key order. Throws ``StoreError`` when the engine fails;
    /// what `each` throws ends the run and passes through as it is.
    func aggregate(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) async throws

    /// The statement ``aggregate(_:each:)`` runs for `query`, with its arguments, so that the numbers can be
    /// checked in the engine's own shell.
    func statement(for query: AggregateQuery) -> (sql: String, arguments: [String])

    /// Hands over every row of a table in arrival order, after its column names. Throws as
    /// ``aggregate(_:each:)`` does.
    func export(_ table: ExportTable, header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) async throws

    /// Hands over the rows of `table` that `page` selects (ids after its `after`, arrival days within its range, at
    /// most its `limit`) in id order, after the column names: a long read taken in bounded steps, each step resumed
    /// after the last id the one before handed over (``ExportPage``). Throws as ``aggregate(_:each:)`` does.
    func export(_ table: ExportTable, page: ExportPage, header: ([String]) throws -> Void,
                each: (ExportRow) throws -> Void) async throws

    /// Per destination, what the relay's outbox holds, as ``Outbox/depths()`` tells the relay: for pages that read
    /// the store without writing to it.
    func outboxDepths() async throws -> [OutboxDepth]

    /// The newest `limit` dead letters of the relay's outbox, newest first, without their bodies.
    func deadLetters(limit: Int) async throws -> [DeadLetter]

    /// The collector's counters (stored postbacks by version, kept refusals by status), as `GET /stats` gives them.
    func stats() async throws -> StoreStats

    /// The newest `limit` refusals, newest first, without their bodies: what a dashboard may show of them.
    func latestRefusals(limit: Int) async throws -> [RefusalSummary]

    /// Lets go of the engine's connections (a pool's, for a server); a no-op for a file.
    func close() async

    /// The consistency rules (``PostbackCheck``) and the winning postbacks by side, per ad network, over the arrival
    /// days `from...to` (`YYYY-MM-DD`, either absent), in network order. One pass over the postbacks in their table.
    func checks(from: String?, to: String?) async throws -> [PostbackChecks]

    /// The newest `limit` kept conflicts (``RepeatTable`` rows whose values differ), newest first, without bodies.
    func latestConflicts(limit: Int) async throws -> [ConflictSummary]

    /// The kept repeats added up per ad network (``RepeatCounts``), in network order, over the repeats whose stored
    /// postback arrived on the days `from...to` (either absent): aggregated by the engine, never read row by row.
    func repeatCounts(from: String?, to: String?) async throws -> [RepeatCounts]
}

/// A kept refusal as people may see it: when, why and where, never the body or its signature.
public struct RefusalSummary: Sendable, Hashable {
    /// When it arrived, ISO 8601 UTC as stored.
    public var receivedAt: String
    /// The verdict's status (`malformed`, `invalid-signature` ...).
    public var status: String
    /// The field at fault, when one is.
    public var field: String?
    /// The reason, as stored (already bounded and cut by the store).
    public var reason: String
    /// The path it was posted to.
    public var endpoint: String

    /// Makes a summary.
    public init(receivedAt: String, status: String, field: String?, reason: String, endpoint: String) {
        self.receivedAt = receivedAt
        self.status = status
        self.field = field
        self.reason = reason
        self.endpoint = endpoint
    }

    /// The statement both engines run: the columns of a summary, newest first.
    public static func statement(limit placeholder: String) -> String {
        "SELECT received_at, status, field, reason, endpoint FROM \(ExportTable.rejected.rawValue) ORDER BY id DESC LIMIT \(placeholder)"
    }
}

extension PostbackReader {
    /// Nothing to let go of.
    public func close() async {}

    /// None: a reader that keeps no postbacks of its own (a test's stand-in). Every engine answers its own.
    public func checks(from: String?, to: String?) async throws -> [PostbackChecks] { [] }

    /// None: a reader that keeps no repeats of its own (a test's stand-in).
    public func latestConflicts(limit: Int) async throws -> [ConflictSummary] { [] }

    /// None: a reader that keeps no repeats of its own (a test's stand-in).
    public func repeatCounts(from: String?, to: String?) async throws -> [RepeatCounts] { [] }
}

/// The tables an export can read.
public enum ExportTable: String, Sendable, Hashable, CaseIterable {
    /// Accepted postbacks.
    case postbacks
    /// Refused bodies, as the size cap left them.
    case rejected = "rejected_postbacks"
    /// Repeats of stored postbacks that differ or came from the other side (``RepeatTable``).
    case repeats = "postback_repeats"
}

/// One exported row, valid only during the call that hands it over: its values point into the engine's
/// buffers and are not copied.
public struct ExportRow {
    let count: Int
    let value: (Int) -> ExportValue

    /// Makes a row view of `count` values read by `value`.
    public init(count: Int, value: @escaping (Int) -> ExportValue) {
        self.count = count
        self.value = value
    }

    /// How many values the row has (as many as the header's names).
    public var valueCount: Int { count }

    /// The value at `index`, `0..<valueCount`.
    public func value(at index: Int) -> ExportValue { value(index) }
}

/// One exported value. Text and blobs point into the engine's row buffer: use them before the row is done.
public enum ExportValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(UnsafeBufferPointer<UInt8>)
    case blob(UnsafeBufferPointer<UInt8>)
}
