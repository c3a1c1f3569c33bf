import ArgumentParser

/// The options every long-running command (`serve`, `signer`, `dashboard`) shares for deployment: where its
/// configuration comes from, `--print-config`, and the log format. `--config` and `--print-config` are read by
/// ``ConfiguredCommandLine`` before argument-parser; they are declared here so that `--help` lists them and
/// argument-parser accepts them.
struct DeploymentOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A JSON configuration file ({\"serve\": {\"port\": 8080}}; or SKAN_CONFIG). Precedence: command line, then SKAN_<COMMAND>_<OPTION> variables, then the file, then the default (docs/guides/deployment.md).",
        valueName: "file"))
    var config: String?

    @Flag(help: "Print every option's value and where it came from (secrets masked), then exit.")
    var printConfig = false

    @Option(help: "Log lines as text, or as JSON objects one a line (fixed event names, metadata as members).")
    var logFormat: LogFormat = .text
}

/// A command whose options come from the command line, the environment and the configuration file.
protocol DeployableCommand {
    var deployment: DeploymentOptions { get }
}

extension ServeCommand: DeployableCommand {}
extension SignerCommand: DeployableCommand {}
extension DashboardCommand: DeployableCommand {}

extension ConfiguredCommandLine {
    /// The log format a parsed command asks for; `nil` for a command without the option.
    static func logFormat(of command: any ParsableCommand) -> LogFormat? {
        (command as? any DeployableCommand)?.deployment.logFormat
    }

    /// Whether a parsed command asks for `--print-config` instead of running.
    static func printsConfiguration(_ command: any ParsableCommand) -> Bool {
        (command as? any DeployableCommand)?.deployment.printConfig ?? false
    }
}
