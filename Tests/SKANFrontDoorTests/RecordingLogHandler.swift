import Logging
import Synchronization

/// A log handler that keeps the messages it is given, so that a test can assert a line was logged.
struct RecordingLogHandler: LogHandler {
    /// The messages, shared by every copy of the handler.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.append("\(event.level) \(event.message) \(merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
    }

    /// A logger whose lines land in `lines`.
    static func logger(_ lines: Lines) -> Logger {
        Logger(label: "front-door-test") { _ in RecordingLogHandler(lines: lines) }
    }
}
