import Foundation
import SKANCore

/// Sorted runs of encoded records (one per chunk of devices), merged into one stream in send-time order.
///
/// A record is `sendAt` (8 bytes), destination index (2), the developer copy's destination index + 1 or 0 (1),
/// length (4), the device's story (device,
/// install, launch, preparation and last update, 8 each, `Int64.min` for no update; tier, 1), then the JSON.
/// Runs of large simulations live in temporary files so memory stays bounded however many devices run; the
/// merge reads each through a small buffer. Ties keep run order, then order within a run, so the output does
/// not depend on how many threads made the runs.
struct RunMerger {
    /// Encodes records into a run.
    struct Encoder {
        private(set) var bytes: [UInt8] = []

        /// Appends a record whose JSON `writeJSON` appends; `copyDestination` is where its developer copy goes.
        mutating func append(_ planned: PlannedPostback, copyDestination: Int?, writeJSON: (inout [UInt8]) -> Void) {
            withUnsafeBytes(of: planned.sendAt.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt16(planned.network).littleEndian) { bytes += $0 }
            bytes.append(copyDestination.map { UInt8($0 + 1) } ?? 0)
            let lengthAt = bytes.count
            bytes += [0, 0, 0, 0]
            func put(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
            put(Int64(planned.device))
            put(planned.installAt)
            put(planned.launchAt)
            put(planned.preparedAt)
            put(planned.lastUpdateAt ?? .min)
            bytes.append(UInt8(truncatingIfNeeded: planned.tier))
            let storyEnd = bytes.count
            writeJSON(&bytes)
            let length = UInt32(bytes.count - storyEnd)
            for index in 0..<4 { bytes[lengthAt + index] = UInt8(truncatingIfNeeded: length >> (8 * index)) }
        }
    }

    /// One decoded record.
    struct Record {
        var sendAt: Int64
        var destination: Int
        /// Where the developer copy goes, if there is one.
        var copyDestination: Int?
        var device: Int
        var installedAt: Int64
        var launchedAt: Int64
        var preparedAt: Int64
        var lastUpdateAt: Int64?
        var tier: Int
        var json: [UInt8]
    }

    /// Bytes of a record before its JSON.
    static let headerSize = 15 + 41

    /// Reads one run, from memory or from its file.
    final class Cursor {
        private var buffer: [UInt8]
        private var position = 0
        private let file: FileHandle?
        private(set) var current: Record?

        init(bytes: [UInt8]) {
            buffer = bytes
            file = nil
            advance()
        }

        init(file: FileHandle) {
            buffer = []
            self.file = file
            advance()
        }

        deinit { try? file?.close() }

        private func ensure(_ count: Int) -> Bool {
            if buffer.count - position >= count { return true }
            guard let file else { return false }
            buffer.removeSubrange(0..<position)
            position = 0
            while buffer.count < count {
                guard let more = try? file.read(upToCount: max(1 << 18, count)), !more.isEmpty else { return false }
                buffer += more
            }
            return true
        }

        private func integer<T: FixedWidthInteger & BitwiseCopyable>(_ type: T.Type) -> T {
            let value = buffer.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: position, as: T.self)) }
            position += MemoryLayout<T>.size
            return value
        }

        /// Moves to the next record, or to `nil` at the end of the run.
        func advance() {
            guard ensure(RunMerger.headerSize) else { current = nil; return }
            let sendAt = integer(Int64.self)
            let destination = Int(integer(UInt16.self))
            let flags = buffer[position]
            position += 1
            let length = Int(integer(UInt32.self))
            let device = Int(integer(Int64.self))
            let installedAt = integer(Int64.self), launchedAt = integer(Int64.self), preparedAt = integer(Int64.self)
            let lastUpdateAt = integer(Int64.self)
            let tier = Int(buffer[position])
            position += 1
            guard ensure(length) else { current = nil; return }
            current = Record(sendAt: sendAt, destination: destination, copyDestination: flags == 0 ? nil : Int(flags) - 1, device: device,
                             installedAt: installedAt, launchedAt: launchedAt, preparedAt: preparedAt,
                             lastUpdateAt: lastUpdateAt == .min ? nil : lastUpdateAt, tier: tier,
                             json: Array(buffer[position..<position + length]))
            position += length
        }
    }

    /// Merges the cursors' runs, calling `body` for each record in (send time, run, position) order.
    static func merge(_ cursors: [Cursor], _ body: (Record) throws -> Void) rethrows {
        // A binary heap of runs keyed by their current record's send time, the key kept beside the run's index:
        // reading it through the cursor would copy the record, and its JSON's reference count, per comparison.
        typealias Entry = (sendAt: Int64, run: Int)
        var heap: [Entry] = cursors.indices.compactMap { run in cursors[run].current.map { ($0.sendAt, run) } }
        func less(_ a: Entry, _ b: Entry) -> Bool { a.sendAt != b.sendAt ? a.sendAt < b.sendAt : a.run < b.run }
        func siftDown(_ start: Int) {
            var index = start
            while true {
                let left = 2 * index + 1, right = left + 1
                var smallest = index
                if left < heap.count && less(heap[left], heap[smallest]) { smallest = left }
                if right < heap.count && less(heap[right], heap[smallest]) { smallest = right }
                if smallest == index { return }
                heap.swapAt(index, smallest)
                index = smallest
            }
        }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        while let top = heap.first {
            let cursor = cursors[top.run]
            try body(cursor.current!)
            cursor.advance()
            if let next = cursor.current {
                heap[0].sendAt = next.sendAt
            } else {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(0) }
        }
    }
}
