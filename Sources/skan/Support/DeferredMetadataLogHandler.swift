import Logging
import SKANCore

/// A `StreamLogHandler` on standard error that keeps its metadata as a plain dictionary and formats it only when
/// a message is written.
///
/// Hummingbird sets a request id on the logger of every request. `StreamLogHandler` re-formats all of its
/// metadata into text on each such change, which under load cost about 5% of the server's CPU for messages that
/// the log level then dropped; here a change is a dictionary insert.
///
/// Every message and metadata value is escaped and bounded on its way out (``Excerpt/printable(_:maximumBytes:)``):
/// values can come from clients, and a newline in one would start a line the collector never wrote.
struct DeferredMetadataLogHandler: LogHandler {
    private var stream: StreamLogHandler
    var metadata: Logger.Metadata = [:]

    init(label: String) {
        stream = StreamLogHandler.standardError(label: label)
    }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The most bytes of a message or of one metadata value that reach a line.
    static let maximumValueBytes = 512

    func log(event: LogEvent) {
        var event = event
        let merged = event.metadata.map { metadata.merging($0) { _, new in new } } ?? metadata
        event.message = "\(Excerpt.printable(event.message.description, maximumBytes: Self.maximumValueBytes))"
        event.metadata = merged.mapValues(Self.printable)
        stream.log(event: event)
    }

    static func printable(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(Excerpt.printable(text, maximumBytes: maximumValueBytes))
        case .stringConvertible(let item): .string(Excerpt.printable(item.description, maximumBytes: maximumValueBytes))
        case .array(let items): .array(items.map(printable))
        case .dictionary(let items): .dictionary(items.mapValues(printable))
        }
    }
}
