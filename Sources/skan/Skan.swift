import ArgumentParser
import Foundation

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
            SignerCommand.self,
            DashboardCommand.self,
            IngestCommand.self,
            SimulateCommand.self,
            ReportCommand.self,
            DemoCommand.self,
            ExportCommand.self,
            BenchCommand.self,
        ]
    )

    /// Runs a command and maps every failure to a one-line message and SKANKit's exit codes
    /// (argument-parser's own usage code, 64, becomes 2).
    static func main() async {
        do {
            var command = try parseAsRoot()
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
            let message = self.message(for: error).split(separator: "\n").first.map(String.init) ?? ""
            FileHandle.standardError.write(Data((message.isEmpty ? "" : "skan: \(message)\n").utf8))
            Foundation.exit(code == .validationFailure ? CLIError.usageExitCode.rawValue : code.rawValue)
        }
    }
}
