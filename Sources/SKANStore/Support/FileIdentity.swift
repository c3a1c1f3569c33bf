import Foundation

/// What makes two paths the same file: the device and inode that `stat(2)` reports after following symlinks.
///
/// Names cannot tell: a hard link, a symlink, `./x` and `x` all reach one file. An output that is opened for
/// writing must never be a file the command is reading (above all a live collector's database), and a store
/// whose file is no longer the one at its path (removed, or replaced) is writing where nobody will read.
public struct FileIdentity: Hashable, Sendable {
    /// The device the file is on.
    public let device: UInt64
    /// The file's inode on that device.
    public let inode: UInt64

    /// The identity of the file at `path`, or `nil` when nothing is there (or it cannot be examined).
    public init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// An identity from `stat(2)`'s fields.
    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// `path` with its folder resolved (symlinks, `.`, `..`) and its last component kept: how a file that does
    /// not exist yet is named, so that a name the database will create later (its `-wal`) is recognised too.
    public static func canonicalName(of path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        guard let resolved = realpath(folder, nil) else { return url.standardizedFileURL.path }
        defer { free(resolved) }
        let name = url.lastPathComponent
        let base = String(cString: resolved)
        return base == "/" ? "/" + name : base + "/" + name
    }
}
