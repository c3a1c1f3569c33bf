import Logging

/// A `StreamLogHandler` on standard error that keeps its metadata as a plain dictionary and formats it only when
/// a message is written.
///
/// Hummingbird sets a request id on the logger of every request. `StreamLogHandler` re-formats all of its
/// metadata into text on each such change, which under load cost about 5% of the server's CPU for messages that
/// the log level then dropped; here a change is a dictionary insert.
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

    func log(event: LogEvent) {
        var event = event
        event.metadata = event.metadata.map { metadata.merging($0) { _, new in new } } ?? metadata
        stream.log(event: event)
    }
}
