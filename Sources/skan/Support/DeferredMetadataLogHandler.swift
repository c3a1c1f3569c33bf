import Foundation
import Logging
import SKANCore

/// A log handler on standard error that keeps its metadata as a plain dictionary and formats it only when a message
/// is written, in swift-log's `StreamLogHandler` format (`TIME LEVEL LABEL: KEY=VALUE ... [SOURCE] MESSAGE`).
///
/// Hummingbird sets a request id on the logger of every request. `StreamLogHandler` re-formats all of its
/// metadata into text on each such change, which under load cost about 5% of the server's CPU for messages that
/// the log level then dropped; here a change is a dictionary insert.
///
/// Every message and metadata value is escaped (``Excerpt/printable(_:maximumBytes:)``): values can come from
/// clients, and a newline in one would start a line the collector never wrote, a U+202E show it reversed. Every
/// line, its newline included, is at most ``maximumLineBytes``: the longest values are cut first, so a refused body
/// logged with `--log-bodies` leaves the status and the reason on the line. A line is one `write`, so lines from
/// several threads never interleave.
struct DeferredMetadataLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    /// Text lines, or JSON objects one a line (``JSONLogLine``), bounded and escaped alike.
    let format: LogFormat

    init(label: String, format: LogFormat = .text) {
        self.label = label
        self.format = format
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The most bytes of a message or of one metadata value, before the line is put together.
    static let maximumValueBytes = 512
    /// The most bytes of a line, its newline included (the README's bound).
    static let maximumLineBytes = 512
    /// What a value is cut to at least, when a line's values are too long together.
    static let minimumValueBytes = 24

    func log(event: LogEvent) {
        let merged = event.metadata.map { metadata.merging($0) { _, new in new } } ?? metadata
        let text = switch format {
        case .text: Self.line(timestamp: Self.timestamp(), level: event.level, label: label, metadata: merged,
                              source: event.source, message: event.message.description)
        case .json: JSONLogLine.line(time: JSONLogLine.time(), level: event.level, label: label, metadata: merged,
                                     source: event.source, message: event.message.description)
        }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// One line: escaped, in `StreamLogHandler`'s format, at most ``maximumLineBytes`` with its newline.
    static func line(timestamp: String, level: Logger.Level, label: String, metadata: Logger.Metadata, source: String,
                     message: String) -> String {
        let head = "\(timestamp) \(level) \(label):"
        let tail = " [\(Excerpt.printable(source, maximumBytes: 64))] \(Excerpt.printable(message, maximumBytes: maximumValueBytes))\n"
        var pairs = metadata.sorted { $0.key < $1.key }.map { pair in
            (key: Excerpt.printable(pair.key, maximumBytes: 64), value: "\(printable(pair.value))")
        }
        func excess() -> Int {
            head.utf8.count + pairs.reduce(0) { $0 + 2 + $1.key.utf8.count + $1.value.utf8.count } + tail.utf8.count
                - maximumLineBytes
        }
        var over = excess()
        while over > 0, let longest = pairs.indices.max(by: { pairs[$0].value.utf8.count < pairs[$1].value.utf8.count }) {
            let size = pairs[longest].value.utf8.count
            guard size > minimumValueBytes else { break }
            pairs[longest].value = Excerpt.of(pairs[longest].value, maximumBytes: max(minimumValueBytes, size - over))
            over = excess()
        }
        let line = head + pairs.map { " \($0.key)=\($0.value)" }.joined() + tail
        guard line.utf8.count > maximumLineBytes else { return line }
        // The message (last) is cut when the values could not make room enough.
        return Excerpt.of(String(line.dropLast()), maximumBytes: maximumLineBytes - 1) + "\n"
    }

    static func printable(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(Excerpt.printable(text, maximumBytes: maximumValueBytes))
        case .stringConvertible(let item): .string(Excerpt.printable(item.description, maximumBytes: maximumValueBytes))
        case .array(let items): .array(items.map(printable))
        case .dictionary(let items): .dictionary(items.mapValues(printable))
        }
    }

    /// Local time as `StreamLogHandler` writes it: `2026-03-13T07:58:49+0000`.
    static func timestamp() -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil else { return "<unknown>" }
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
