import Foundation
import SKANSimulator

/// Writes output lines to a file or standard output through a buffer, so a million lines cost few system calls.
struct LineWriter {
    private let handle: FileHandle
    private let ownsHandle: Bool
    private var buffer: [UInt8] = []

    init(path: String) throws(CLIError) {
        if path == "-" {
            handle = .standardOutput
            ownsHandle = false
        } else {
            handle = try Self.open(path)
            ownsHandle = true
        }
        buffer.reserveCapacity(1 << 20)
    }

    /// Opens `path` for writing as the shell's `>` does: made when missing, emptied when a regular file, and written
    /// through whatever it is. Why not `FileManager.createFile`: it writes a new file and renames it over the path,
    /// which replaced `/dev/null` itself with a regular file when run as root, and a symbolic link with a file.
    static func open(_ path: String) throws(CLIError) -> FileHandle {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    mutating func write(_ record: SimulatedRecord) throws {
        record.appendEnvelopeLine(to: &buffer)
        if buffer.count >= 1 << 20 { try flush() }
    }

    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    mutating func close() throws {
        try flush()
        if ownsHandle { try handle.close() }
    }
}
