import ArgumentParser
import Logging
import Synchronization

/// How the long-running commands write their log lines.
enum LogFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text, json

    /// The format of this process's lines, chosen once before a command runs: swift-log's bootstrap is
    /// process-wide as well.
    static var selected: LogFormat {
        get { choice.withLock { $0 } }
        set { choice.withLock { $0 = newValue } }
    }

    private static let choice = Mutex(LogFormat.text)

    /// A handler of this format for `label`.
    func handler(label: String) -> any LogHandler {
        DeferredMetadataLogHandler(label: label, format: self)
    }
}
