import Foundation
import GRDB
import SKANCore
import SKANStore

/// The default ``PostbackStore``: one SQLite file in WAL mode, through GRDB.
///
/// WAL lets `GET` requests read while the writer commits. Writes come from one ``GroupCommitWriter``, which
/// hands over many postbacks per call, so one transaction (and with ``SQLiteDurability/full`` one fsync)
/// covers a whole batch.
public final class SQLitePostbackStore: PostbackStore {
    let database: any DatabaseWriter
    /// The writer connection's `synchronous` setting, which the relay's own transactions relax (``SQLiteOutbox``).
    let durability: SQLiteDurability
    private let cap: RejectionCap
    /// The file, or `nil` in memory.
    private let path: String?
    /// The files opened at `path` (the database and its WAL), to notice when the path leads elsewhere or a file was
    /// cut short (removed, replaced, truncated): SQLite would go on writing to the open, unlinked file and lose every
    /// postback. Checked before and after every commit (``DatabaseFileGuard``).
    private let files: DatabaseFileGuard?
    /// When stored postbacks are folded into the rollups (``SQLiteRollupFold``).
    public let folding: RollupFolding
    /// Folds them, on the rollups file's own connection, beside the writer (``SQLiteRollupFolder``).
    let folder: SQLiteRollupFolder
    /// Checkpoints off the writer's commits, told by the writer's WAL hook of the frames each commit left
    /// (``SQLiteCheckpointer``); `nil` in memory.
    private let checkpointer: SQLiteCheckpointer?

    /// Opens (creating when missing) the database at `path`, without touching its schema: run ``migrate()``
    /// before the first write (the collector runs it before its server starts), or use ``open(path:durability:rejectionCap:)``.
    public convenience init(path: String, durability: SQLiteDurability = .full,
                            rejectionCap: RejectionCap = RejectionCap(),
                            folding: RollupFolding = .default) throws(StoreError) {
        try self.init(path: path, durability: durability, rejectionCap: rejectionCap, folding: folding,
                      checkpointLimits: SQLiteCheckpointer.Limits())
    }

    /// The same with the WAL sizes at which checkpoints happen (``SQLiteCheckpointer``) and how long a fold waits for
    /// the rollups file's lock: for tests.
    init(path: String, durability: SQLiteDurability, rejectionCap: RejectionCap, folding: RollupFolding,
         checkpointLimits: SQLiteCheckpointer.Limits, rollupsBusyTimeout: TimeInterval = 5) throws(StoreError) {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability.pragma)")
            // A rollup fold's narrow copy of its rows (SQLiteRollupFold) stays in memory, never in a temporary file.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        // A reader never waits for the writer in WAL mode; this only covers a second process opening the file.
        configuration.busyMode = .timeout(5)
        do {
            folder = try SQLiteRollupFolder(databasePath: path, folding: folding, busyTimeout: rollupsBusyTimeout)
            let pool = try DatabasePool(path: path, configuration: configuration)
            // GRDB sets `synchronous = NORMAL` on the writer when it turns WAL on, after `prepareDatabase` ran, so
            // the setting is made again on the writer connection, the only one whose commits it governs.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(durability.pragma)") }
            let checkpointer = SQLiteCheckpointer(path: path, limits: checkpointLimits)
            try pool.writeWithoutTransaction { db in try checkpointer.attach(to: db) }
            self.checkpointer = checkpointer
            database = pool
        } catch {
            // SQLite says "unable to open database file" (error 14) for a missing folder, which names nothing.
            let reason = FileCheck.missingFolder(of: path).map { "the folder \($0) does not exist; create it first" }
            throw StoreError(.cannotOpen, "cannot open the database \(path): \(reason ?? "\(error)")")
        }
        cap = rejectionCap
        self.durability = durability
        self.folding = folding
        self.path = path
        files = DatabaseFileGuard(path: path)
    }

    /// Opens the database at `path` and brings its schema up to date: what a command that writes at once needs.
    public static func open(path: String, durability: SQLiteDurability = .full, rejectionCap: RejectionCap = RejectionCap(),
                            folding: RollupFolding = .default) async throws(StoreError) -> SQLitePostbackStore {
        let store = try SQLitePostbackStore(path: path, durability: durability, rejectionCap: rejectionCap,
                                            folding: folding)
        try await store.migrate()
        return store
    }

    /// A store in memory, for tests: nothing survives the process. Its schema is made at once: no other
    /// process can share a private in-memory database, so there is nothing to wait for.
    public init(inMemoryWith rejectionCap: RejectionCap = RejectionCap(),
                folding: RollupFolding = .default) throws(StoreError) {
        do {
            let queue = try DatabaseQueue()
            database = queue
            folder = SQLiteRollupFolder(sharing: queue, folding: folding)
        } catch {
            throw StoreError(.cannotOpen, "cannot open an in-memory database: \(error)")
        }
        cap = rejectionCap
        durability = .normal
        self.folding = folding
        path = nil
        files = nil
        checkpointer = nil
        try migrateNow()
    }

    /// Runs the numbered migrations this file has not run yet (none, usually), in SQLite's own write lock, so
    /// two processes opening one file migrate it once.
    public func migrate() async throws(StoreError) {
        try migrateNow()
    }

    private func migrateNow() throws(StoreError) {
        do {
            try SQLiteSchema.migrate(database, folder: folder)
            // What an earlier process left unfolded (a crash, a removed rollups file) folds now, beside the writes.
            let last = try database.read { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM \(PostbackTable.name)") ?? 0 }
            folder.noted(lastID: last)
        } catch {
            throw StoreError(.migrationFailed, "cannot bring the schema up to date: \(error)")
        }
    }

    /// The journal mode SQLite reports (`wal` for a file, `memory` in memory).
    public func journalMode() throws(StoreError) -> String {
        try read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }

    /// The `synchronous` setting of the connection that commits (the writer): 1 NORMAL, 2 FULL.
    public func synchronousSetting() throws(StoreError) -> Int {
        do {
            return try database.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
        } catch {
            throw StoreError(.readFailed, "cannot read the database: \(error)")
        }
    }

    public func write(_ entries: [StoreEntry]) async throws(StoreError) -> [StoreOutcome] {
        // One stat(2) per transaction, beside its fsync: an acknowledgement must never go out for a write into a
        // file that is gone.
        try checkFile()
        let cap = cap
        do {
            let (outcomes, lastID) = try await database.write { db in
                try Self.write(entries, cap: cap, in: db)
            }
            // The commit reached the files the store opened, or it is not acknowledged.
            try checkFile(after: true)
            if let lastID { folder.noted(lastID: lastID) }
            await checkpointIfBehind()
            return outcomes
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.writeFailed, "cannot store \(entries.count) postbacks: \(error)")
        }
    }

    /// The file beside the database at `path` that holds its rollups (``SQLiteRollupFolder``): derived data, made
    /// again from `postbacks` when it is missing.
    public static func rollupsPath(for path: String) -> String { SQLiteRollupFolder.rollupsPath(for: path) }

    /// Waits until the rollups hold every stored postback but fewer than ``RollupFolding/idleMinimum``: the
    /// folder is idle. For tests and tools; a collector never waits for its folds.
    public func waitForFolds() async {
        await folder.settle()
    }

    /// When the writer is behind (``SQLiteCheckpointer/writerIsBehind``), it waits for one checkpoint with no commit
    /// beside it, so that its next transaction starts the WAL again. The postbacks before it are committed: nothing
    /// it meets fails them.
    func checkpointIfBehind() async {
        guard let checkpointer, checkpointer.writerIsBehind else { return }
        await checkpointer.checkpointAndWait()
    }

    /// Waits for a running background checkpoint: for tests.
    func waitForCheckpoints() {
        checkpointer?.waitUntilIdle()
    }

    /// Background checkpoints completed: for tests.
    var backgroundCheckpoints: Int { checkpointer?.completed ?? 0 }

    /// The WAL frames the last commit left, as its hook saw them: for tests.
    var walFrames: Int { checkpointer?.walFrames ?? 0 }

    public func postbacks(transactionID: String) async throws(StoreError) -> [StoredPostback] {
        do {
            return try await database.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM postbacks WHERE transaction_id = ? ORDER BY id",
                                 arguments: [transactionID]).map(Self.storedPostback)
            }
        } catch {
            throw StoreError(.readFailed, "cannot read postbacks: \(error)")
        }
    }

    /// Reads the counters the writer keeps in the transaction of its inserts: a few rows, however large the
    /// tables are, and exact, since a counter commits or rolls back with the rows it counts.
    public func stats() async throws(StoreError) -> StoreStats {
        // After a rename-over the pool would go on counting the old, open file: say the file is gone instead.
        try checkFile()
        do {
            return try await database.read { db in
                StoreStats(counters: try Row.fetchAll(db, sql: "SELECT name, value FROM counters").map { (name: $0[0] as String, value: $0[1] as Int) })
            }
        } catch {
            throw StoreError(.readFailed, "cannot count postbacks: \(error)")
        }
    }

    /// `nil` when the file at the store's path is the one it opened and a read succeeds.
    public func health() async -> StoreError? {
        do {
            try checkFile()
            _ = try await database.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            return StoreError(.readFailed, "cannot read the database: \(error)")
        }
    }

    /// Throws when the path no longer leads to the files this store opened, or they were cut short; `after` a
    /// commit, also when the commit's WAL is not there. A removed WAL is first emptied into the main file.
    func checkFile(after: Bool = false) throws(StoreError) {
        guard let files else { return }
        do {
            try after ? files.confirm() : files.check()
        } catch {
            if files.walIsGone { try? database.writeWithoutTransaction { db in _ = try db.checkpoint(.full) } }
            throw error
        }
    }

    /// Closes the database so that it is whole in its main file: no `-wal` or `-shm` is left beside it.
    ///
    /// GRDB closes a pool's writer before its readers, and SQLite keeps the WAL when the last connection to close
    /// is a read-only one, so a pool that has served reads left a WAL behind. The WAL is therefore checkpointed
    /// into the main file and truncated first (the data no longer depends on it), and a last read-write connection
    /// of our own, closing alone, then deletes both files.
    ///
    /// Throws when the file was removed or replaced while open: whatever was written since went to a file that
    /// is gone, and the caller must not report a clean stop.
    public func close() async throws(StoreError) {
        if let checkpointer {
            checkpointer.close()
            try? await database.writeWithoutTransaction { db in checkpointer.detach(from: db) }
        }
        do throws(StoreError) {
            try checkFile()
        } catch {
            files?.retire()
            try? database.close()
            throw StoreError(.fileReplaced, error.reason + "; what was written since may not be in it")
        }
        files?.retire()
        do {
            // Whole rollups for whoever opens the files next. Synchronous: a close after a shutdown deadline runs in a
            // cancelled task, where GRDB's async write throws CancellationError before it starts.
            try folder.close()
            if path != nil {
                _ = try await database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            }
            try database.close()
            if let path {
                let last = try DatabaseQueue(path: path)
                // SQLite opens the WAL only on a first read, and deletes it only if it opened it.
                try await last.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
                try last.close()
            }
        } catch {
            throw StoreError(.writeFailed, "cannot close the database: \(error)")
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.read(body)
        } catch {
            throw StoreError(.readFailed, "cannot read the database: \(error)")
        }
    }
}
