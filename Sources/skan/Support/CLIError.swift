import ArgumentParser
import SKANCore

/// A failure the command line reports in one line, with its exit status.
struct CLIError: Error, CustomStringConvertible {
    /// Exit status for usage and input errors.
    static let usageExitCode = ExitCode(2)

    let message: String
    let exitCode: ExitCode

    init(_ message: String, exitCode: ExitCode = CLIError.usageExitCode) {
        self.message = message
        self.exitCode = exitCode
    }

    init(_ error: SKANError) {
        self.init(error.reason)
    }

    var description: String { message }
}
