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

    /// Checks up front that every named file can be opened and read as a file, so a typo fails before any output.
    static func checkReadable(_ paths: [String]) throws(CLIError) {
        for path in paths where path != "-" {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CLIError("cannot read \(path): no such file")
            }
            // A folder passes the readability check (its entries can be listed) but read(2) fails on it.
            guard !isDirectory.boolValue else { throw CLIError("cannot read \(path): it is a directory") }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw CLIError("cannot read \(path): permission denied")
            }
        }
    }

    /// The bytes of records a batch stops at. A batch is a few thousand postbacks of under a kilobyte each;
    /// records of up to ``JSONRecordSplitter/defaultMaximumRecordLength`` would otherwise make it gigabytes.
    static let batchBytes = 8 << 20

    /// The next batch of at least one record, or `nil` at the end of all input: `minimum` records, or fewer
    /// when they add up to ``batchBytes`` first.
    mutating func nextBatch(minimum: Int = 4096) throws(CLIError) -> [SourcedRecord]? {
        var batch: [SourcedRecord] = []
        var records: [JSONRecordSplitter.Record] = []
        var bytes = 0
        while batch.count < minimum && bytes < Self.batchBytes {
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
            } else if count < 0 {
                if errno == EINTR { continue }
                // Not the end of the input: saying nothing here once made `skan verify <folder>` exit 0.
                let error = String(cString: strerror(errno))
                if fd != STDIN_FILENO { close(fd) }
                current = nil
                throw CLIError("cannot read \(source == "stdin" ? "standard input" : source): \(error)")
            } else {
                splitter.finish(into: &records)
                if fd != STDIN_FILENO { close(fd) }
                current = nil
            }
            for record in records {
                bytes += record.bytes.count
                batch.append(SourcedRecord(source: source, record: record))
            }
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
