/// One bounded step of a long export: the rows after id `after`, that arrived on the days `from...to` (UTC,
/// `YYYY-MM-DD`, either absent), at most `limit` of them, in id order. A reader that goes on from the last id handed
/// over reads a range of any size one step at a time (`skan relay replay` over a day of 10,000,000 postbacks), so
/// what it holds is one step's rows, and each step is a statement of its own: no transaction or cursor held open
/// across the whole range.
public struct ExportPage: Sendable, Hashable {
    /// The id the step goes on after (0: from the start).
    public var after: Int64
    /// The most rows the step hands over; fewer means the range is done.
    public var limit: Int
    /// The first arrival day included.
    public var from: String?
    /// The last arrival day included.
    public var to: String?

    /// Makes a step.
    public init(after: Int64 = 0, limit: Int, from: String? = nil, to: String? = nil) {
        self.after = after
        self.limit = limit
        self.from = from
        self.to = to
    }

    /// The statement every SQL engine runs for the step of `table`; its parameters, in order, are ``after``, then
    /// ``from`` and ``to`` when each is set, then ``limit``. `placeholder(n)` writes the engine's n-th (1-based).
    ///
    /// It walks the primary key from ``after``, the day compared on each row (as ``PostbackChecks`` compares it): an
    /// index on the arrival time would cost every stored postback an insert into it, on the write path the relay
    /// must not slow, to spare a replay (a rare operator's job) a walk over ids it skips.
    public func statement(_ table: ExportTable, placeholder: (Int) -> String) -> String {
        var count = 1
        var filters = ["id > \(placeholder(count))"]
        let day = "substr(received_at, 1, 10)"
        if from != nil { count += 1; filters.append("\(day) >= \(placeholder(count))") }
        if to != nil { count += 1; filters.append("\(day) <= \(placeholder(count))") }
        count += 1
        return "SELECT * FROM \(table.rawValue) WHERE \(filters.joined(separator: " AND ")) ORDER BY id LIMIT \(placeholder(count))"
    }

    /// Whether a row of id `id` that arrived at `receivedAt` (ISO 8601 UTC, as stored) is in the step's range.
    public func takes(id: Int64, receivedAt: some Collection<UInt8>) -> Bool {
        guard id > after else { return false }
        let day = String(decoding: receivedAt.prefix(10), as: UTF8.self)
        return (from.map { day >= $0 } ?? true) && (to.map { day <= $0 } ?? true)
    }
}

extension PostbackReader {
    /// The step out of the whole export, filtered in Swift: the reference the SQL engines are held to, and what a
    /// reader that keeps its rows in memory (the memory engine, a test's stand-in) answers. It reads the table to
    /// its end, or to the step's last row.
    public func export(_ table: ExportTable, page: ExportPage, header: ([String]) throws -> Void,
                       each: (ExportRow) throws -> Void) async throws {
        var (idIndex, arrivedIndex, handed) = (-1, -1, 0)
        do {
            try await export(table, header: { names in
                idIndex = names.firstIndex(of: "id") ?? -1
                arrivedIndex = names.firstIndex(of: PostbackTable.receivedAt.name) ?? -1
                try header(names)
            }, each: { row in
                guard handed < page.limit else { throw ExportPageFull() }
                guard idIndex >= 0, arrivedIndex >= 0, case .integer(let id) = row.value(at: idIndex),
                      case .text(let arrived) = row.value(at: arrivedIndex), page.takes(id: id, receivedAt: arrived) else { return }
                handed += 1
                try each(row)
            })
        } catch is ExportPageFull {}
    }

    /// Nothing queued: a reader that keeps no outbox (a test's stand-in). Every engine answers its own.
    public func outboxDepths() async throws -> [OutboxDepth] { [] }

    /// None: a reader that keeps no outbox (a test's stand-in).
    public func deadLetters(limit: Int) async throws -> [DeadLetter] { [] }
}

/// Ends the whole export that a step is cut from once the step has its rows.
private struct ExportPageFull: Error {}
