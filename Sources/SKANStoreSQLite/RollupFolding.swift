/// When SQLite folds stored postbacks into the per-day rollups (``SQLiteRollupFolder``).
///
/// A fold costs CPU per row (on a network's traffic, where most rows are new keys of the rollup with campaigns, about
/// as much as the insert itself). It runs beside the writer, on the rollups file's own connection, once a step's worth
/// of rows waits. Reads count the rows not yet folded from `postbacks`, so what they cost grows with the backlog,
/// never what they answer.
public struct RollupFolding: Sendable, Equatable {
    /// The most rows one fold takes: what one transaction of the rollups file holds, and what a close waits for
    /// at most per step. 2,048 keeps a fold under about 30 ms (Benchmarks/rollup-trigger.py).
    public var step: Int
    /// How many rows must wait before the folder folds: fewer wait for later rows (or a clean close), so that a quiet
    /// collector does not commit a fold after each postback. A fold's pages cost about the same whatever its rows (a
    /// network's keys land all over a rollup), so smaller folds wrote more bytes per postback: the default is a step.
    public var idleMinimum: Int

    /// Folding with the given bounds; each is at least 1.
    public init(step: Int = 2048, idleMinimum: Int = 2048) {
        self.step = max(step, 1)
        self.idleMinimum = max(idleMinimum, 1)
    }

    /// The default: folds of 2,048 rows once a whole step waits.
    public static let `default` = RollupFolding()

    /// Folds of everything waiting once at least `rows` wait: for tests that need folds at known points.
    public static func everyBatch(after rows: Int) -> RollupFolding {
        RollupFolding(step: .max, idleMinimum: rows)
    }
}
