/// When SQLite folds stored postbacks into the per-day rollups (``SQLiteRollupFolder``).
///
/// A fold costs CPU per row (on a network's traffic, where most rows are new keys of the rollup with campaigns, about
/// as much as the insert itself). It runs beside the writer, on the rollups file's own connection, once a step's worth
/// of rows waits. Reads count the rows not yet folded from `postbacks`, so what they cost grows with the backlog,
/// never what they answer.
public struct RollupFolding: Sendable, Equatable {
    /// The most rows one fold takes: what one transaction of the rollups file holds, and what a close waits for
    /// at most per step. A fold's pages cost about the same whatever its rows, so a larger step writes fewer bytes
    /// and spends less CPU a postback; the fold runs on its own connection and thread, so its length (about 100 ms
    /// for 8,192 traffic-shaped rows) holds no commit back. Under `wrk` beside 2,048, 8,192 wrote 1.1 KB less a
    /// postback (the rollups file: 1.2-1.5 KB -> 0.3-0.6 KB) with a lower p99 (Benchmarks/history, 2026-11-26).
    public var step: Int
    /// How many rows must wait before the folder folds: fewer wait for later rows (or a clean close), so that a quiet
    /// collector does not commit a fold after each postback. A fold's pages cost about the same whatever its rows (a
    /// network's keys land all over a rollup), so smaller folds wrote more bytes per postback: the default is a step.
    public var idleMinimum: Int

    /// Folding with the given bounds; each is at least 1.
    public init(step: Int = 8192, idleMinimum: Int = 8192) {
        self.step = max(step, 1)
        self.idleMinimum = max(idleMinimum, 1)
    }

    /// The default: folds of 8,192 rows once a whole step waits.
    public static let `default` = RollupFolding()

    /// Folds of everything waiting once at least `rows` wait: for tests that need folds at known points.
    public static func everyBatch(after rows: Int) -> RollupFolding {
        RollupFolding(step: .max, idleMinimum: rows)
    }
}
