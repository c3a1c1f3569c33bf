import Foundation

/// How long a store keeps what it accepted (`skan serve --retain-days`, `--retain-body-days`): accepted postbacks
/// for ``postbackDays`` days, and their raw bodies (the `raw_body` column, the bytes as received, some 60 % of a
/// row) for ``bodyDays``. `nil` keeps them for ever, the default.
///
/// The per-day rollups are never deleted: a network keeps its aggregates longer than its raw rows, so reports a
/// rollup answers (by day, network, campaign, source identifier, window, value, winner, fidelity, conversion type)
/// still count expired days in full, while a report read from the rows themselves (by app, country, source app or
/// domain, a export) counts only what is kept. Days inside the window are untouched either way.
public struct Retention: Sendable, Hashable {
    /// Days an accepted postback is kept after it arrived; `nil`: for ever.
    public var postbackDays: Int?
    /// Days a raw body is kept after its postback arrived; `nil`: for ever (or as long as its row).
    public var bodyDays: Int?
    /// Rows one step deletes or empties at most: what it holds the writer up for.
    public var batch: Int
    /// How long the service waits once nothing more has expired.
    public var interval: Duration

    /// A retention; the defaults keep everything, and delete in steps of 500 rows once a minute when asked to.
    public init(postbackDays: Int? = nil, bodyDays: Int? = nil, batch: Int = 500, interval: Duration = .seconds(60)) {
        self.postbackDays = postbackDays
        self.bodyDays = bodyDays
        self.batch = max(batch, 1)
        self.interval = interval
    }

    /// Whether nothing is ever deleted: no service runs.
    public var keepsEverything: Bool { postbackDays == nil && bodyDays == nil }

    /// The arrival time before which postbacks are deleted at `now`, or `nil`.
    public func postbackCutoff(now: Date) -> Date? {
        postbackDays.map { now.addingTimeInterval(-Double($0) * 86_400) }
    }

    /// The arrival time before which raw bodies are emptied at `now`, or `nil`; never later than
    /// ``postbackCutoff(now:)`` needs (a body inside the rows' window but past its own is emptied).
    public func bodyCutoff(now: Date) -> Date? {
        bodyDays.map { now.addingTimeInterval(-Double($0) * 86_400) }
    }
}

/// What one step of emptying raw bodies did: how many it emptied, and the last postback id it passed (expired, with
/// or without a body left), where the next step starts.
public struct BodyExpiry: Sendable, Hashable {
    /// Bodies emptied.
    public var emptied: Int
    /// The last id passed; the `after` of the next step.
    public var through: Int64

    /// A step's outcome.
    public init(emptied: Int, through: Int64) {
        self.emptied = emptied
        self.through = through
    }
}

/// The deletions of ``Retention``, which every engine answers in its own SQL. Both work in arrival order from the
/// oldest row and stop at the first row received at or after the cutoff, so a step reads only the rows it deletes
/// (and one more), however large the table: no index on the arrival time is needed, since ids follow arrival
/// (several collectors on one database interleave by at most a commit).
public protocol ExpiringStore: Sendable {
    /// Deletes, among the `limit` oldest stored postbacks, those received before `cutoff`, up to the first one
    /// received at or after it; returns how many. An engine may keep rows it still needs (a file engine's rows not
    /// yet folded into the rollups, and its newest row, which keeps ids growing): those go in a later step.
    func deletePostbacks(receivedBefore cutoff: Date, limit: Int) async throws(StoreError) -> Int

    /// Empties the raw body of each of the `limit` oldest postbacks with an id after `after` that was received
    /// before `cutoff`, up to the first received at or after it; the row, its fields and its dedup key stay.
    func dropBodies(receivedBefore cutoff: Date, after: Int64, limit: Int) async throws(StoreError) -> BodyExpiry
}
