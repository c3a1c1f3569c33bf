/// Splits a byte stream into JSON records: JSON lines, a pretty-printed object spanning many lines, or a mix.
///
/// A newline ends a record when every bracket opened in it is closed. So that one truncated line cannot
/// swallow the lines after it, a line that starts with `{` in its first column always starts a new record
/// (pretty-printed JSON indents everything but the outermost braces). Feed chunks of any size; records
/// come out in input order.
public struct JSONRecordSplitter: Sendable {
    /// One record: the bytes of (what should be) one JSON object.
    public struct Record: Sendable {
        /// The bytes, without surrounding whitespace; empty when ``isTooLong``.
        public var bytes: [UInt8]
        /// The input line the record starts on, counting from 1.
        public var line: Int
        /// The record was longer than the splitter's limit; its bytes were dropped.
        public var isTooLong: Bool
    }

    /// The longest record kept; longer ones are reported with ``Record/isTooLong`` and their bytes dropped,
    /// so that memory stays flat on any input.
    public let maximumRecordLength: Int

    private var pending: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var atLineStart = true
    private var line = 1
    private var recordLine = 1
    private var started = false
    private var discarding = false

    /// The default limit: 1 MiB, far above any postback (collectors refuse bodies over 64 KiB).
    public static let defaultMaximumRecordLength = 1 << 20

    /// A splitter that keeps records up to `maximumRecordLength` bytes.
    public init(maximumRecordLength: Int = defaultMaximumRecordLength) {
        self.maximumRecordLength = maximumRecordLength
    }

    /// Consumes a chunk, appending every record it completes to `records`.
    public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, into records: inout [Record]) {
        var start = 0
        var index = 0
        let count = chunk.count
        while index < count {
            if inString && !escaped {
                // Most bytes of a postback are inside strings (the signature, ids): skip to the next byte that
                // matters there in a tight loop. Nothing else changes for the bytes skipped.
                while index < count, chunk[index] != UInt8(ascii: "\""), chunk[index] != UInt8(ascii: "\\"),
                      chunk[index] != 0x0A {
                    index += 1
                }
                if index == count { break }
            }
            let byte = chunk[index]
            if !started {
                switch byte {
                case 0x20, 0x09, 0x0D:
                    atLineStart = false
                    index += 1; start = index; continue
                case 0x0A:
                    line += 1; atLineStart = true
                    index += 1; start = index; continue
                default:
                    started = true
                    recordLine = line
                    start = index
                }
            } else if atLineStart && byte == UInt8(ascii: "{") && (depth > 0 || discarding) {
                // A new object in column one: the record before it was cut short.
                emit(chunk, start, index, into: &records)
                started = true
                recordLine = line
                start = index
            }
            atLineStart = false
            if inString {
                if escaped { escaped = false }
                else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inString = false }
                else if byte == 0x0A { inString = false }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
            }
            if byte == 0x0A {
                line += 1
                atLineStart = true
                if depth <= 0 {
                    emit(chunk, start, index, into: &records)
                    start = index + 1
                }
            }
            index += 1
        }
        if started { keep(chunk, start, count) }
    }

    /// Ends the input, giving the last record if one is open.
    public mutating func finish(into records: inout [Record]) {
        if started {
            let empty = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
            emit(empty, 0, 0, into: &records)
        }
    }

    private mutating func keep(_ chunk: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        guard !discarding else { return }
        if pending.count + (end - start) > maximumRecordLength {
            discarding = true
            pending = []
            return
        }
        pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<end]))
    }

    private mutating func emit(_ chunk: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, into records: inout [Record]) {
        keep(chunk, start, end)
        if discarding {
            records.append(Record(bytes: [], line: recordLine, isTooLong: true))
        } else {
            while let last = pending.last, last == 0x20 || last == 0x09 || last == 0x0D || last == 0x0A {
                pending.removeLast()
            }
            records.append(Record(bytes: pending, line: recordLine, isTooLong: false))
        }
        pending.removeAll(keepingCapacity: true)
        depth = 0
        inString = false
        escaped = false
        started = false
        discarding = false
    }
}
