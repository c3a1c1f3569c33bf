import Foundation
import SKANCore
import SKANStore
import Synchronization

/// Watches the files of an open SQLite database in WAL mode, so that no commit is acknowledged into a file nobody
/// will read again (issue 32): the main file must stay the file that was opened (same device and inode) and never
/// shrink below the size it reached (SQLite without auto-vacuum only grows it, at checkpoints; `truncate -s 0`
/// shrinks it), and the `-wal` file, once a commit made it, must stay the one SQLite writes (removed, SQLite goes on
/// appending to the unlinked file, which is lost with the process).
///
/// ``check()`` runs before each commit and in every health check, ``confirm()`` after each commit: a commit whose
/// files changed under it is reported as failed (503), never acknowledged. The first damage found is kept: every
/// later write and health check fails with it at once, until the process restarts and opens the files anew.
final class DatabaseFileGuard: Sendable {
    /// What `stat(2)` says of a file: which file, and how long.
    struct Status: Equatable {
        let identity: FileIdentity
        let size: Int64

        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            identity = FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
            size = Int64(status.st_size)
        }
    }

    private struct State {
        /// The largest size the main file was seen at.
        var mainSize: Int64
        /// The WAL SQLite writes, once a commit made it.
        var wal: FileIdentity?
        /// The first damage found.
        var damage: StoreError?
        /// Whether the store closed its files (SQLite removes the WAL then): nothing more to watch.
        var retired = false
    }

    let path: String
    private let main: FileIdentity
    private let state: Mutex<State>

    /// A guard for the database at `path` as it is now; `nil` when nothing is there.
    init?(path: String) {
        guard let status = Status(path: path) else { return nil }
        self.path = path
        main = status.identity
        state = Mutex(State(mainSize: status.size, wal: Status(path: path + "-wal")?.identity))
    }

    /// The damage found so far, if any.
    var damage: StoreError? { state.withLock { $0.damage } }

    /// Whether the damage is a WAL removed or replaced while the main file is whole: the connection still holds the
    /// old WAL open, and a checkpoint copies what it holds (every acknowledged commit) into the main file.
    var walIsGone: Bool {
        state.withLock { state in
            guard !state.retired, state.damage != nil, let wal = state.wal else { return false }
            let main = Status(path: path)
            return Status(path: path + "-wal")?.identity != wal && main?.identity == self.main
                && (main?.size ?? 0) >= state.mainSize
        }
    }

    /// Stops watching: the store is closing its files, and SQLite removes the WAL as it does.
    func retire() {
        state.withLock { $0.retired = true }
    }

    /// Throws when the files are not the ones the store opened, or no longer whole.
    func check() throws(StoreError) {
        let main = Status(path: path), wal = Status(path: path + "-wal")
        let found = state.withLock { state -> StoreError? in
            if state.retired { return nil }
            if let damage = state.damage { return damage }
            if let damage = inspect(main: main, wal: wal, state: state) {
                state.damage = damage
                return damage
            }
            state.mainSize = max(state.mainSize, main?.size ?? 0)
            return nil
        }
        if let found { throw found }
    }

    /// After a commit: the files are still the ones opened, and the WAL the commit went to is there (the first
    /// commit's WAL is remembered from now on).
    func confirm() throws(StoreError) {
        try check()
        let wal = Status(path: path + "-wal")
        let found = state.withLock { state -> StoreError? in
            if state.retired { return nil }
            guard let wal, wal.size > 0 else {
                let damage = StoreError(.fileReplaced, "the WAL file \(path)-wal is missing or empty after a commit; "
                                        + "the write did not reach a file that lasts")
                state.damage = state.damage ?? damage
                return state.damage
            }
            if state.wal == nil { state.wal = wal.identity }
            return nil
        }
        if let found { throw found }
    }

    private func inspect(main: Status?, wal: Status?, state: State) -> StoreError? {
        guard let main, main.identity == self.main else {
            return StoreError(.fileReplaced, "the database file \(path) was removed or replaced while the store had it open")
        }
        if main.size < state.mainSize {
            return StoreError(.fileReplaced, "the database file \(path) shrank from \(state.mainSize) to \(main.size) "
                              + "bytes while the store had it open (truncated?)")
        }
        if let known = state.wal, wal?.identity != known {
            return StoreError(.fileReplaced, "the WAL file \(path)-wal was removed or replaced while the store had it open")
        }
        return nil
    }
}
