import Foundation

/// An `OutputStream` that collects bytes and hands them to a file descriptor in large writes.
///
/// CSV.swift writes one byte per `write` call; without a buffer every byte would be a system call.
/// Used from one thread at a time.
public final class BufferedOutputStream: OutputStream {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var pending: [UInt8] = []
    private var status: Stream.Status = .notOpen
    private let capacity = 1 << 20
    /// The first write error, reported by ``flush()``.
    private var failure: String?

    /// A stream over an open file descriptor (standard output is 1).
    public init(descriptor: Int32, ownsDescriptor: Bool = false) {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        pending.reserveCapacity(capacity)
        super.init(toMemory: ())
    }

    /// Foundation requires this initializer of every subclass; a memory stream here means standard output.
    public required convenience init(toMemory: ()) {
        self.init(descriptor: STDOUT_FILENO)
    }

    /// A stream into a new (or truncated) file.
    public convenience init(path: String) throws(ReportError) {
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw ReportError(.output, "--out: cannot write \(path): \(String(cString: strerror(errno)))")
        }
        self.init(descriptor: descriptor, ownsDescriptor: true)
    }

    public override func open() { status = .open }
    public override var streamStatus: Stream.Status { status }
    public override var hasSpaceAvailable: Bool { true }

    public override func write(_ bytes: UnsafePointer<UInt8>, maxLength length: Int) -> Int {
        if length == 1 {
            pending.append(bytes.pointee)
        } else {
            pending.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
        }
        if pending.count >= capacity { drain() }
        return length
    }

    /// Appends text directly (headers, JSON lines), bypassing the byte-at-a-time path.
    public func write(_ text: String) {
        pending.append(contentsOf: text.utf8)
        if pending.count >= capacity { drain() }
    }

    /// Appends bytes directly.
    public func write(_ bytes: [UInt8]) {
        pending.append(contentsOf: bytes)
        if pending.count >= capacity { drain() }
    }

    /// Writes everything buffered, and reports the first write error since the stream opened.
    public func flush() throws(ReportError) {
        drain()
        if let failure { throw ReportError(.output, "cannot write the output: \(failure)") }
    }

    public override func close() {
        drain()
        if ownsDescriptor { Foundation.close(descriptor) }
        status = .closed
    }

    private func drain() {
        var offset = 0
        pending.withUnsafeBytes { raw in
            while offset < raw.count {
                let written = Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    if failure == nil { failure = String(cString: strerror(errno)) }
                    return
                }
                offset += written
            }
        }
        pending.removeAll(keepingCapacity: true)
    }
}
