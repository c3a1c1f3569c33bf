import Foundation
import SKANStore

/// Collects output bytes and hands them to a file descriptor in large writes, so that streaming millions of
/// rows costs a system call per megabyte, not per row. Used from one thread at a time.
///
/// A file named by `--out` is written through a temporary file beside it and renamed into place by
/// ``commit()``: a run that fails or is interrupted leaves the old file as it was, never half a file, and the
/// destination is never truncated while something may still be reading it.
public final class BufferedOutput {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// For a regular file: the temporary file being written and the path it replaces on ``commit()``.
    private var replacement: (temporary: String, destination: String)?
    private var isClosed = false
    private var pending: [UInt8] = []
    private let capacity = 1 << 20
    /// The first write error, reported by ``flush()``.
    private var failure: String?

    /// Output to an open file descriptor (standard output is 1).
    public init(descriptor: Int32, ownsDescriptor: Bool = false) {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        pending.reserveCapacity(capacity)
    }

    /// Output to the file at `path`, which ``commit()`` creates or replaces.
    ///
    /// - Parameter protected: files the output must never be (the database a report reads, with its journal
    ///   files). A path that reaches one of them, by name, hard link or symlink, is refused before anything
    ///   is opened for writing.
    public convenience init(path: String, protecting protected: [String] = []) throws(ReportError) {
        try Self.refuse(path, ifAnyOf: protected)
        let target = Self.destination(of: path)
        // Devices and FIFOs (`/dev/stdout`, `/dev/null`, a pipe) are written in place: they cannot be renamed over.
        if target.isSpecial {
            let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw Self.cannotWrite(path) }
            self.init(descriptor: descriptor, ownsDescriptor: true)
            return
        }
        let folder = URL(fileURLWithPath: target.path).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: target.path).lastPathComponent
        let temporary = folder + "/.\(name).skan-\(getpid())-\(UInt32.random(in: 0 ... .max)).tmp"
        let descriptor = Foundation.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.cannotWrite(path) }
        // A replaced file keeps its permissions; a new one gets 0644 less the umask, as before.
        if let mode = target.mode { _ = fchmod(descriptor, mode) }
        self.init(descriptor: descriptor, ownsDescriptor: true)
        replacement = (temporary, target.path)
    }

    /// The file at `path`, or standard output when there is none: what every `--out` option means.
    public static func to(_ path: String?, protecting protected: [String] = []) throws(ReportError) -> BufferedOutput {
        guard let path else { return BufferedOutput(descriptor: STDOUT_FILENO) }
        return try BufferedOutput(path: path, protecting: protected)
    }

    /// Appends bytes.
    public func write(_ bytes: [UInt8]) {
        pending.append(contentsOf: bytes)
        if pending.count >= capacity { drain() }
    }

    /// Appends text.
    public func write(_ text: String) {
        pending.append(contentsOf: text.utf8)
        if pending.count >= capacity { drain() }
    }

    /// Writes everything buffered, and reports the first write error since the output opened.
    public func flush() throws(ReportError) {
        drain()
        if let failure { throw ReportError(.output, "cannot write the output: \(failure)") }
    }

    /// Finishes the output: writes what is left and, for a file, makes it durable and puts it in place at its
    /// path. Until then a file's old content (or its absence) is what others see.
    public func commit() throws(ReportError) {
        try flush()
        guard let replacement, !isClosed else { return }
        guard fsync(descriptor) == 0, rename(replacement.temporary, replacement.destination) == 0 else {
            let error = ReportError(.output, "cannot write \(replacement.destination): \(String(cString: strerror(errno)))")
            close()
            throw error
        }
        self.replacement = nil
        close()
    }

    /// Closes a file this output opened. Output that was never committed is discarded (its temporary file
    /// removed); a descriptor output has what was buffered written.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        if let replacement {
            Foundation.close(descriptor)
            unlink(replacement.temporary)
            self.replacement = nil
            return
        }
        drain()
        if ownsDescriptor { Foundation.close(descriptor) }
    }

    deinit { close() }

    private func drain() {
        if let error = Self.writeAll(pending, to: descriptor), failure == nil { failure = error }
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes every byte to `descriptor`, retrying short and interrupted writes; returns the error, if one stopped it.
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
    }
}

extension BufferedOutput {
    /// Throws when `path` is one of `protected` by file identity (hard links and symlinks included), or names
    /// one of them, existing or not, once its folder is resolved.
    static func refuse(_ path: String, ifAnyOf protected: [String]) throws(ReportError) {
        let identity = FileIdentity(path: path)
        let name = FileIdentity.canonicalName(of: path)
        for file in protected {
            let sameFile = identity != nil && identity == FileIdentity(path: file)
            if sameFile || name == FileIdentity.canonicalName(of: file) {
                throw ReportError(.output, "--out: \(path) is the database file \(file); writing there would destroy "
                                  + "the postbacks it holds (choose another path)")
            }
        }
    }

    /// Where the output goes once symlinks are followed, whether that is a device or FIFO, and the mode of the
    /// regular file it replaces.
    static func destination(of path: String) -> (path: String, isSpecial: Bool, mode: mode_t?) {
        // `/dev/stdout` and its kind lead through /proc to whatever the descriptor is; never rename over that.
        if path.hasPrefix("/dev/") || path.hasPrefix("/proc/") { return (path, true, nil) }
        var status = stat()
        guard stat(path, &status) == 0 else { return (path, false, nil) }
        guard status.st_mode & S_IFMT == S_IFREG else { return (path, true, nil) }
        guard let resolved = realpath(path, nil) else { return (path, false, status.st_mode & 0o7777) }
        defer { free(resolved) }
        return (String(cString: resolved), false, status.st_mode & 0o7777)
    }

    static func cannotWrite(_ path: String) -> ReportError {
        ReportError(.output, "--out: cannot write \(path): \(String(cString: strerror(errno)))")
    }
}
