/// When SQLite's writer folds stored postbacks into the per-day rollups (``SQLiteRollupFold``).
///
/// A fold costs CPU per row (on a network's traffic, where most rows are new keys of the rollup with campaigns, about
/// as much as the insert itself), so under load it is deferred: the writer folds when it has nothing to write, and
/// in a batch's transaction only once the backlog is passed. Reads count the rows not yet folded from `postbacks`,
/// so what they cost grows with the backlog, never what they answer.
public struct RollupFolding: Sendable, Equatable {
    /// The most rows one fold takes: what a fold holds up the writes behind it for. 2,048 keeps a fold under about
    /// 30 ms (Benchmarks/rollup-trigger.py), inside a 50 ms p99.
    public var step: Int
    /// How many rows may wait for the rollup furthest behind before a batch's transaction folds a step, whether or
    /// not the writer is idle; past twice this, a batch folds until under it again: the bound on what a read adds
    /// from `postbacks`.
    public var backlog: Int
    /// How many rows must wait before an idle writer folds: fewer wait for the next lull (or a clean close), so
    /// that a quiet collector does not commit a fold, and fsync, after each postback. A fold's pages cost about the
    /// same whatever its rows (a network's keys land all over a rollup), so smaller idle folds wrote more bytes per
    /// postback: the default is a whole step.
    public var idleMinimum: Int

    /// Folding with the given bounds; each is at least 1.
    public init(step: Int = 2048, backlog: Int = 65_536, idleMinimum: Int = 2048) {
        self.step = max(step, 1)
        self.backlog = max(backlog, 1)
        self.idleMinimum = max(idleMinimum, 1)
    }

    /// The default: folds of 2,048 rows, a backlog of 65,536, idle folds once a whole step waits.
    public static let `default` = RollupFolding()

    /// A fold of everything waiting in every batch that leaves at least `rows` waiting: for tests that need folds at
    /// known points.
    public static func everyBatch(after rows: Int) -> RollupFolding {
        RollupFolding(step: .max, backlog: rows, idleMinimum: rows)
    }
}
