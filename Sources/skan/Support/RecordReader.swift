import Foundation
import SKANCore

/// One JSON record and where it came from.
struct SourcedRecord: Sendable {
    let source: String
    let record: JSONRecordSplitter.Record

    /// `file:line`, for people finding the record again.
    var location: String { "\(source):\(record.line)" }
}

/// Reads JSON records from files or standard input in batches, so that memory stays flat however
/// large the input, and the caller can verify one batch on every core while keeping input order.
struct RecordReader {
    static let chunkSize = 1 << 20

    private var inputs: [String]
    private var current: (path: String, fd: Int32)?
    private var splitter = JSONRecordSplitter()
    private var buffer = [UInt8](repeating: 0, count: RecordReader.chunkSize)

    /// Reads `paths` in order; `-`, or no path at all, is standard input.
    init(paths: [String]) {
        inputs = paths.isEmpty ? ["-"] : paths
    }

    /// Checks up front that every named file can be opened, so a typo fails before any output.
    static func checkReadable(_ paths: [String]) throws(CLIError) {
        for path in paths where path != "-" {
            guard FileManager.default.isReadableFile(atPath: path) else {
                var isDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                throw CLIError("cannot read \(path): \(exists ? (isDirectory.boolValue ? "it is a directory" : "permission denied") : "no such file")")
            }
        }
    }

    /// The next batch of at least one record, or `nil` at the end of all input.
    mutating func nextBatch(minimum: Int = 4096) throws(CLIError) -> [SourcedRecord]? {
        var batch: [SourcedRecord] = []
        var records: [JSONRecordSplitter.Record] = []
        while batch.count < minimum {
            if current == nil {
                guard !inputs.isEmpty else { break }
                let path = inputs.removeFirst()
                let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
                guard fd >= 0 else { throw CLIError("cannot read \(path): \(String(cString: strerror(errno)))") }
                current = (path == "-" ? "stdin" : path, fd)
                splitter = JSONRecordSplitter()
            }
            guard let (source, fd) = current else { break }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            records.removeAll(keepingCapacity: true)
            if count > 0 {
                buffer.withUnsafeBufferPointer { all in
                    splitter.feed(UnsafeBufferPointer(rebasing: all[0..<count]), into: &records)
                }
            } else {
                if count < 0 && errno == EINTR { continue }
                splitter.finish(into: &records)
                if fd != STDIN_FILENO { close(fd) }
                current = nil
            }
            batch.append(contentsOf: records.map { SourcedRecord(source: source, record: $0) })
        }
        return batch.isEmpty ? nil : batch
    }
}

extension RecordReader {
    /// A file's size in bytes for progress, 0 for standard input or an unreadable path.
    static func size(of path: String) -> Int {
        guard path != "-", let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return 0 }
        return (attributes[.size] as? NSNumber)?.intValue ?? 0
    }
}

/// A ``RecordReader`` that a ``Prefetcher`` drives from its own queue.
///
/// `@unchecked Sendable`: only the prefetcher's serial queue calls ``nextBatch()``, one call at a time.
final class LockedReader: @unchecked Sendable {
    private var reader: RecordReader

    init(_ reader: RecordReader) { self.reader = reader }

    func nextBatch() throws(CLIError) -> [SourcedRecord]? { try reader.nextBatch() }
}
