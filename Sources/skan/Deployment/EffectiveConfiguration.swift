import Foundation

/// What `--print-config` prints: every option of the command with the value it runs with and where that came
/// from, secrets masked.
struct EffectiveConfiguration: Sendable {
    /// Where a value came from, highest precedence first.
    enum Source: Sendable, Equatable, CustomStringConvertible {
        case commandLine
        case environment(variable: String)
        case file(path: String)
        case `default`

        var description: String {
            switch self {
            case .commandLine: "command line"
            case .environment(let variable): "environment \(variable)"
            case .file(let path): "file \(path)"
            case .default: "default"
            }
        }
    }

    struct Entry: Sendable {
        let key: String
        let option: DeclaredOption
        /// As command-line text; empty when the option has no value (no default, not given).
        let values: [String]
        let source: Source

        /// The values as printed: secrets masked, a list joined by commas.
        var shown: String {
            if values.isEmpty { return "(none)" }
            if option.isSecret { return "****" }
            return values.map(SecretText.masked).joined(separator: ", ")
        }
    }

    let command: String
    let configFile: String?
    let entries: [Entry]

    /// One line per option, `key = value  # source`, the values aligned.
    func rendered() -> String {
        var lines = ["# skan \(command): command line > environment (SKAN_\(command.uppercased())_*) > file (--config) > default"]
        lines.append("# configuration file: \(configFile ?? "none")")
        let width = entries.map { $0.key.count }.max() ?? 0
        let valueWidth = min(entries.map { $0.shown.count }.max() ?? 0, 48)
        for entry in entries {
            let key = entry.key.padding(toLength: width, withPad: " ", startingAt: 0)
            let value = entry.shown.count >= valueWidth ? entry.shown
                : entry.shown.padding(toLength: valueWidth, withPad: " ", startingAt: 0)
            lines.append("\(key) = \(value)  # \(entry.source)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
