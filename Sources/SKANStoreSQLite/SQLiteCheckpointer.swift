import Dispatch
import GRDB
import GRDBSQLite
import Synchronization

/// Copies the WAL's pages into the database file on a connection and a thread of its own, so that the writer's
/// commits do not wait for it.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the WAL past 1,000 pages: that commit copies about
/// 4 MB into the database file and syncs it twice before the writer can answer the postbacks it holds, and under a
/// collector's load it comes every few hundred postbacks. Here the writer's connection has automatic checkpoints off
/// and a WAL hook that, past ``Limits/request`` frames, asks this checkpointer for a `PASSIVE` checkpoint, which
/// copies while the writer goes on committing (it takes no lock a writer needs). Once a checkpoint has copied every
/// frame, the writer's next transaction starts the WAL again from its beginning, as after an automatic checkpoint.
///
/// Under load the writer may always have committed a little more by the time a checkpoint finishes, so the WAL
/// would only grow: past ``Limits/writer`` frames the writer, between two transactions, waits for one more
/// checkpoint on this connection (``checkpointAndWait()``), which copies only what the last one left. It goes
/// through this connection's queue rather than checkpointing on its own, where it met the running checkpoint's lock
/// as `SQLITE_BUSY`. Durability is SQLite's own in both cases: a checkpoint
/// only copies frames that a commit already synced to the WAL.
///
/// The tail: a checkpoint that leaves fewer than ``Limits/tail`` frames behind (what the writer committed while it
/// copied) is not followed by another in the background, which would meet the same race with the next commit —
/// under load three or four short checkpoints followed each long one, each syncing the WAL and the database file and
/// writing the same hot pages again. The writer copies that tail itself instead, between two transactions
/// (``wantsTail``), so that its next transaction starts the WAL again: one wait of a few pages per WAL's worth.
final class SQLiteCheckpointer: Sendable {
    /// When checkpoints happen, in WAL frames (a frame is one page, 4 KB by default).
    struct Limits: Sendable {
        /// Frames after a commit past which the checkpointer is asked to copy them: SQLite's own default.
        var request: Int = 1000
        /// Frames past which the writer checkpoints itself (64 MB of 4 KB pages).
        var writer: Int = 16_000
        /// Frames a background checkpoint may leave for the writer to copy (``SQLiteCheckpointer/wantsTail``);
        /// 0: the checkpointer copies every remainder itself.
        var tail: Int = 256
    }

    private struct State {
        var running = false
        var again = false
        /// A checkpoint left a tail for the writer (``wantsTail``); requests wait for the writer until then.
        var tailForWriter = false
        var closed = false
        var connection: DatabaseQueue?
        var completed = 0
    }

    private let path: String
    let limits: Limits
    /// The frames the writer's last commit left, as its WAL hook saw them.
    private let frames = Atomic<Int>(0)
    private let queue = DispatchQueue(label: "skan.sqlite.checkpoint", qos: .utility)
    private let state = Mutex(State())

    init(path: String, limits: Limits = Limits()) {
        self.path = path
        self.limits = limits
    }

    /// ``Limits/tail`` (`nil`: no tail is left to the writer).
    private var tailLimit: Int? { limits.tail > 0 ? limits.tail : nil }

    /// The frames the writer's last commit left in the WAL, as its hook saw them.
    var walFrames: Int { frames.load(ordering: .relaxed) }

    /// Whether the writer should checkpoint before its next transaction: the WAL passed ``Limits/writer`` frames
    /// because no background checkpoint found a moment when every frame was copied, or one left it a tail.
    var writerIsBehind: Bool { walFrames >= limits.writer || wantsTail }

    /// How many checkpoints this checkpointer has completed: for tests.
    var completed: Int { state.withLock { $0.completed } }

    /// Whether the last background checkpoint left a short tail that the writer should copy before its next
    /// transaction (``checkpointAndWait()``).
    var wantsTail: Bool { state.withLock { $0.tailForWriter } }

    /// Turns the writer connection's automatic checkpoints off and hooks its commits to this checkpointer, which the
    /// hook retains until ``detach(from:)``. Runs on the writer's connection (inside a GRDB write), once.
    func attach(to db: Database) throws {
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        sqlite3_wal_hook(db.sqliteConnection, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            let checkpointer = Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue()
            checkpointer.frames.store(Int(frames), ordering: .relaxed)
            if Int(frames) >= checkpointer.limits.request { checkpointer.request() }
            return SQLITE_OK
        }, Unmanaged.passRetained(self).toOpaque())
    }

    /// Removes the hook that ``attach(to:)`` installed and releases this checkpointer from it. On the writer's
    /// connection.
    func detach(from db: Database) {
        sqlite3_wal_hook(db.sqliteConnection, nil, nil)
        Unmanaged.passUnretained(self).release()
    }

    /// Asks for a checkpoint; one already running takes the request with it (it runs once more when it ends).
    func request() {
        let start = state.withLock { state -> Bool in
            guard !state.closed, !state.tailForWriter else { return false }
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        if start { queue.async { self.run() } }
    }

    private func run() {
        while true {
            let left = checkpointOnce()
            let more = state.withLock { state -> Bool in
                state.completed += 1
                if state.again && !state.closed {
                    state.again = false
                    switch Self.after(left: left, tail: tailLimit) {
                    case .again:
                        return true
                    case .writer:
                        state.tailForWriter = true
                    }
                }
                state.running = false
                return false
            }
            if !more { return }
        }
    }

    /// Who copies what a background checkpoint left when commits came while it ran.
    enum Remainder: Equatable {
        /// The checkpointer, at once.
        case again
        /// The writer, before its next transaction (``wantsTail``).
        case writer
    }

    /// The rule for a remainder of `left` frames (`nil`: the checkpoint failed, or the count is unknown): a short
    /// tail (1 to `tail` frames) is the writer's; anything else the checkpointer takes again.
    static func after(left: Int?, tail: Int?) -> Remainder {
        guard let left, let tail, left > 0, left <= tail else { return .again }
        return .writer
    }

    /// A failure is left for the writer to meet: a file that cannot be checkpointed is one the next commit or the
    /// writer's own checkpoint reports on, with the postbacks it concerns. Returns the frames the writer has
    /// committed that this checkpoint did not copy, or `nil` when it failed.
    @discardableResult
    private func checkpointOnce() -> Int? {
        do {
            let connection = try state.withLock { state -> DatabaseQueue in
                if let connection = state.connection { return connection }
                var configuration = Configuration()
                // Only the checkpoint's own syncs (of the WAL before copying, of the file after): it commits nothing.
                configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
                let connection = try DatabaseQueue(path: path, configuration: configuration)
                state.connection = connection
                return connection
            }
            let copied = try connection.writeWithoutTransaction { db in try db.checkpoint(.passive).checkpointedFrameCount }
            return max(frames.load(ordering: .relaxed) - copied, 0)
        } catch {
            return nil
        }
    }

    /// A checkpoint that the writer waits for, after any that is running: it copies what that one left, and with no
    /// commit meanwhile it copies every frame, so the writer's next transaction starts the WAL again. Never throws:
    /// the postbacks before it are committed whatever it meets (SQLite ignores an automatic checkpoint's failure the
    /// same way), and a file in trouble fails the next commit, which answers for its own postbacks.
    func checkpointAndWait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { !$0.closed }
            guard open else { return continuation.resume() }
            queue.async {
                self.checkpointOnce()
                self.state.withLock { $0.tailForWriter = false }
                continuation.resume()
            }
        }
    }

    /// Waits for a running checkpoint to end: for tests, and before ``close()``.
    func waitUntilIdle() {
        queue.sync {}
    }

    /// Takes no more requests, waits for a running checkpoint and closes its connection, so that the store's own
    /// close finds the file with one connection left.
    func close() {
        state.withLock { $0.closed = true }
        queue.sync {}
        let connection = state.withLock { state -> DatabaseQueue? in
            defer { state.connection = nil }
            return state.connection
        }
        try? connection?.close()
    }
}
