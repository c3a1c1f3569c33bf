import ArgumentParser
import Foundation
import SKANCore

/// The `skan` command line: thin parsing and printing over the SKANKit libraries.
@main
struct Skan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skan",
        abstract: "SKAdNetwork toolkit: verify postbacks, sign and check impressions, collect postbacks.",
        discussion: """
            Exit status: 0 when everything checked is valid, 1 when anything is not, 2 for usage and input errors.
            """,
        version: SkanVersion.text,
        subcommands: [
            VerifyCommand.self,
            SignCommand.self,
            VerifyImpressionCommand.self,
            KeygenCommand.self,
            ServeCommand.self,
            RelayCommand.self,
            SignerCommand.self,
            DashboardCommand.self,
            IngestCommand.self,
            SimulateCommand.self,
            ReportCommand.self,
            CampaignsCommand.self,
            DemoCommand.self,
            ExportCommand.self,
            BenchCommand.self,
        ]
    )

    /// Runs a command and maps every failure to a one-line message and SKANKit's exit codes
    /// (argument-parser's own usage code, 64, becomes 2).
    static func main() async {
        if let message = unknownCommand(CommandLine.arguments.dropFirst().first) {
            FileHandle.standardError.write(Data("skan: \(message)\n".utf8))
            Foundation.exit(CLIError.usageExitCode.rawValue)
        }
        let prepared: ConfiguredCommandLine
        do {
            prepared = try await ConfiguredCommandLine.prepare(Array(CommandLine.arguments.dropFirst()),
                                                               environment: ProcessInfo.processInfo.environment)
        } catch {
            FileHandle.standardError.write(Data("skan: \(error.message)\n".utf8))
            Foundation.exit(error.exitCode.rawValue)
        }
        do {
            var command = try parseAsRoot(prepared.arguments)
            if let format = ConfiguredCommandLine.logFormat(of: command) { LogFormat.selected = format }
            if ConfiguredCommandLine.printsConfiguration(command), let effective = prepared.effective {
                FileHandle.standardOutput.write(Data(effective.rendered().utf8))
                return
            }
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch let error as CLIError {
            FileHandle.standardError.write(Data("skan: \(error.message)\n".utf8))
            Foundation.exit(error.exitCode.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            }
            // One line, as every other error: argument-parser's full message adds the usage and a pointer to
            // --help, which stays available for that.
            let message = (self.message(for: error).split(separator: "\n").first.map(String.init)).map(prepared.annotate) ?? ""
            FileHandle.standardError.write(Data((message.isEmpty ? "" : "skan: \(message)\n").utf8))
            Foundation.exit(code == .validationFailure ? CLIError.usageExitCode.rawValue : code.rawValue)
        }
    }

    /// The names `skan` takes first: its commands and `help`.
    static var commandNames: [String] {
        configuration.subcommands.map { $0.configuration.commandName ?? $0._commandName } + ["help"]
    }

    /// A one-line error for a first argument that is neither an option nor a command, listing the commands and the
    /// nearest one; argument-parser's own says only "Unexpected argument".
    static func unknownCommand(_ first: String?) -> String? {
        guard let first, !first.hasPrefix("-"), !commandNames.contains(first) else { return nil }
        let nearest = commandNames.map { ($0, EditDistance.between($0, first)) }.min { $0.1 < $1.1 }
        let suggestion = nearest.flatMap { $0.1 <= 2 ? " (did you mean \($0.0)?)" : nil } ?? ""
        let shown = Excerpt.printable(first, maximumBytes: 64)
        return "unknown command '\(shown)'\(suggestion); commands are \(commandNames.dropLast().joined(separator: ", "))"
    }
}

/// Levenshtein distance between two short strings, for "did you mean".
enum EditDistance {
    static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
