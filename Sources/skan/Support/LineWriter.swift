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
            guard FileManager.default.createFile(atPath: path, contents: nil),
                  let handle = FileHandle(forWritingAtPath: path) else {
                throw CLIError("cannot write \(path)")
            }
            self.handle = handle
            ownsHandle = true
        }
        buffer.reserveCapacity(1 << 20)
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
