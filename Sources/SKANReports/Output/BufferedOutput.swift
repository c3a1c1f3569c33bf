import Foundation

/// Collects output bytes and hands them to a file descriptor in large writes, so that streaming millions of
/// rows costs a system call per megabyte, not per row. Used from one thread at a time.
public final class BufferedOutput {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
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

    /// Output to a new (or truncated) file.
    public convenience init(path: String) throws(ReportError) {
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw ReportError(.output, "--out: cannot write \(path): \(String(cString: strerror(errno)))")
        }
        self.init(descriptor: descriptor, ownsDescriptor: true)
    }

    /// The file at `path`, or standard output when there is none: what every `--out` option means.
    public static func to(_ path: String?) throws(ReportError) -> BufferedOutput {
        guard let path else { return BufferedOutput(descriptor: STDOUT_FILENO) }
        return try BufferedOutput(path: path)
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

    /// Writes what is left and closes a file this output opened.
    public func close() {
        drain()
        if ownsDescriptor { Foundation.close(descriptor) }
    }

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
