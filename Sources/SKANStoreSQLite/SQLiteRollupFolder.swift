import Foundation
import GRDB
import SKANStore
import Synchronization

/// Folds a SQLite store's postbacks into its per-day rollups on a connection of its own, beside the writer.
///
/// The rollups live in a file of their own beside the database (``rollupsPath(for:)``, `PATH-rollups`), so that a fold
/// takes that file's write lock, never the database's: the writer commits postbacks while a fold runs. When the fold
/// ran in the writer's lulls, each fold step held up every postback that arrived behind it, which was most of the
/// p99 and kept the writer from taking the next batch (Benchmarks/history/2026-11.md, issue 30).
///
/// Each rollup and its watermark (the last folded `postbacks.id`) commit together in the file, so a crash, a lost file
/// or a restored database only means folding again from the watermark (or from the start); only retention
/// (`--retain-days`) makes the file hold counts that `postbacks` no longer has, and then it deletes folded rows alone. Its commits therefore do not wait for the disk (`synchronous = NORMAL`): WAL keeps them atomic,
/// and the postbacks they count are durable in the database. Reads add the rows past the watermark from `postbacks`
/// (``SQLiteRollupFold/unfolded(_:)``), so every answer counts exactly the committed postbacks whatever is folded.
///
/// Folds are driven by the writer: after each commit it says how far ids have reached (``noted(lastID:)``), and once
/// ``RollupFolding/idleMinimum`` rows wait, the folder folds steps on its own serial queue until fewer wait. No task,
/// no timer: a quiet collector folds nothing until a step's worth has arrived, and its clean close folds the rest.
final class SQLiteRollupFolder: Sendable {
    /// The schema name of the rollups file where a reader attaches it, and of the database where the folder does.
    static let attachedRollups = "rollups"
    static let attachedDatabase = "store"

    /// The rollups file of the database at `path`.
    static func rollupsPath(for path: String) -> String { path + "-rollups" }

    private struct State {
        var lastID: Int64 = 0
        var watermark: Int64 = 0
        var scheduled = false
        var closed = false
        var failure: String?
    }

    /// The connection that folds: on the rollups file with the database attached, or, for a store in memory, the
    /// store's own connection (its rollups stay in its one database).
    let writer: any DatabaseWriter
    /// Whether ``writer`` is a connection of its own to the rollups file, which this folder closes.
    let ownsWriter: Bool
    private let folding: RollupFolding
    private let state = Mutex(State())

    /// A folder for the database at `path`: opens (making when missing) its rollups file. A fold waits up to
    /// `busyTimeout` seconds for the file's lock (another process's fold), then gives up until the next commit.
    init(databasePath path: String, folding: RollupFolding, busyTimeout: TimeInterval = 5) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            try db.execute(sql: "ATTACH DATABASE ? AS \(Self.attachedDatabase)", arguments: [path])
        }
        writer = try DatabaseQueue(path: Self.rollupsPath(for: path), configuration: configuration)
        ownsWriter = true
        self.folding = folding
    }

    /// A folder that folds on `writer`, a store's own connection: a store in memory.
    init(sharing writer: any DatabaseWriter, folding: RollupFolding) {
        self.writer = writer
        ownsWriter = false
        self.folding = folding
    }

    /// Takes the rollups file's write lock first in a deferred transaction, and only it: BEGIN IMMEDIATE would lock
    /// every attached file, the database included, and a deferred read-then-write could meet another process's fold
    /// (SQLITE_BUSY without waiting). An update that changes no row still takes the lock, waiting as the busy mode says.
    static func lockRollups(_ db: Database) throws {
        try db.execute(sql: "UPDATE \(SQLiteRollupFold.watermarkTable) SET folded_through = folded_through WHERE 0")
    }

    /// The writer committed postbacks up to `lastID`: folds when a step's worth waits.
    func noted(lastID: Int64) {
        let due = state.withLock { state -> Bool in
            state.lastID = max(state.lastID, lastID)
            guard !state.scheduled, !state.closed, state.lastID - state.watermark >= Int64(folding.idleMinimum) else {
                return false
            }
            state.scheduled = true
            return true
        }
        if due { writer.asyncWriteWithoutTransaction { [self] db in foldWhileBehind(db) } }
    }

    /// Folds steps until fewer than ``RollupFolding/idleMinimum`` rows wait for every rollup, or the folder closes.
    private func foldWhileBehind(_ db: Database) {
        while true {
            do {
                let (last, watermark) = try step(db, threshold: folding.idleMinimum)
                let more = state.withLock { state -> Bool in
                    state.lastID = max(state.lastID, last)
                    state.watermark = watermark
                    state.failure = nil
                    guard !state.closed, state.lastID - watermark >= Int64(folding.idleMinimum) else {
                        state.scheduled = false
                        return false
                    }
                    return true
                }
                if !more { return }
            } catch {
                // Reads stay exact (they add what is not folded); the next commit tries again.
                state.withLock { $0.scheduled = false; $0.failure = "\(error)" }
                return
            }
        }
    }

    /// One fold step in a transaction of the rollups file: the newest id, and the lowest watermark after it.
    private func step(_ db: Database, threshold: Int) throws -> (last: Int64, watermark: Int64) {
        var result: (Int64, Int64) = (0, 0)
        try db.inTransaction(.deferred) {
            try Self.lockRollups(db)
            let last = try Int64.fetchOne(db, sql: "SELECT max(id) FROM \(PostbackTable.name)") ?? 0
            let fold = try SQLiteRollupFold.foldIfDue(lastID: last, threshold: threshold, step: folding.step, in: db)
            result = (last, fold.watermark)
            return .commit
        }
        return result
    }

    /// Waits until no fold is running or due: every rollup is within ``RollupFolding/idleMinimum`` of the newest id
    /// the writer noted. For tests and tools.
    func settle() async {
        while true {
            let busy = state.withLock { $0.scheduled }
            if !busy { return }
            // A barrier on the folder's queue: returns once the running fold has.
            _ = try? await writer.writeWithoutTransaction { _ in 0 }
        }
    }

    /// The error of the last fold, when it failed (cleared by the next that succeeds).
    var lastFailure: String? { state.withLock { $0.failure } }

    /// Stops folding in the background, folds every row past every watermark when `foldingTheRest` (a copy of the
    /// files then has its rollups whole), and closes the rollups file so that no `-wal` or `-shm` is left beside it.
    func close(foldingTheRest: Bool = true) throws {
        state.withLock { $0.closed = true }
        if foldingTheRest { try foldAll() }
        guard ownsWriter, let queue = writer as? DatabaseQueue else { return }
        _ = try queue.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try queue.close()
        // The last connection to close a WAL file deletes its side files; the database's own close does the same.
        let last = try DatabaseQueue(path: queue.path)
        _ = try last.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        try last.close()
    }

    /// The lowest watermark: every postback up to it is in every rollup.
    func foldedThrough() throws -> Int64 {
        try writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT COALESCE(min(folded_through), 0) FROM \(SQLiteRollupFold.watermarkTable)") ?? 0
        }
    }

    /// Folds every row past every watermark, now, on the folder's connection.
    func foldAll() throws {
        try writer.writeWithoutTransaction { db in
            try db.inTransaction(.deferred) {
                try Self.lockRollups(db)
                try SQLiteRollupFold.foldAll(in: db)
                return .commit
            }
        }
    }
}
