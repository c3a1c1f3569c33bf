/// How hard SQLite works to keep a commit across failures (`PRAGMA synchronous`), in WAL mode.
///
/// A collector answers 200 only after its row committed, and a device that got 200 never sends that postback
/// again, so a committed row must survive whatever the collector promises to survive.
public enum SQLiteDurability: String, Sendable, Hashable, CaseIterable {
    /// `synchronous=NORMAL`: a commit is written to the WAL file with `write(2)` before it returns, and the WAL
    /// is synced only at checkpoints. The kernel holds the pages once `write` returns, so a commit survives the
    /// process dying (SIGKILL, a crash) but not the machine losing power before the next checkpoint.
    case normal
    /// `synchronous=FULL`: the WAL is also synced (`fsync`) at every commit, so a commit survives power loss too.
    /// Group commit pays that sync once per batch, not once per postback. The default.
    case full

    var pragma: String { rawValue.uppercased() }
}
