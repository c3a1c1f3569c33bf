import ArgumentParser
import Foundation

/// One option a command declares, as argument-parser describes it (`_dumpHelp()`, the JSON behind
/// `--experimental-dump-help`): the configuration layer reads these instead of a list of its own, so an option
/// someone adds to `serve`, `signer` or `dashboard` can be set from the file and the environment without a change
/// here.
struct DeclaredOption: Sendable, Equatable {
    /// An option takes a value; a flag is on or off.
    enum Kind: Sendable, Equatable { case option, flag }

    /// The long name without its dashes: `admin-port`. It is the key in the file and, upper-cased with `_`, the
    /// end of the environment variable.
    let name: String
    /// Every name it answers to on the command line, dashes included: `--port`, `-p`.
    let spellings: [String]
    let kind: Kind
    /// Repeatable (`--path A --path B`): an array in the file, a comma-separated list in the environment.
    let isRepeating: Bool
    /// The default as `--help` shows it, `nil` when there is none.
    let defaultValue: String?
    /// The command does not parse without it.
    let isRequired: Bool
    /// The values an enumerated option takes, empty for any.
    let allValues: [String]
    /// For a flag with an inversion (`--x` / `--no-x`): the spelling that turns it off.
    let offSpelling: String?

    /// A secret comes from the file or the environment, never from the command line, and `--print-config` masks
    /// it: an option named `…token`, `…password`, `…secret` or `…hmac-key` (their `…-file` siblings name a file,
    /// which is not secret).
    var isSecret: Bool {
        ["token", "password", "secret", "hmac-key"].contains { name == $0 || name.hasSuffix("-" + $0) }
    }

    /// Options that are about the configuration itself, or answered before any is read.
    static let unconfigurable: Set<String> = ["help", "version", "config", "print-config", "experimental-dump-help"]

    /// The options `command` declares (its option groups' included), in the order `--help` lists them.
    static func of(_ command: any ParsableCommand.Type) -> [DeclaredOption] {
        guard let data = command._dumpHelp().data(using: .utf8),
              let dump = try? JSONDecoder().decode(Dump.self, from: data) else { return [] }
        return (dump.command.arguments ?? []).compactMap(DeclaredOption.init)
    }

    private init?(_ argument: Dump.Argument) {
        guard argument.kind != "positional", let names = argument.names else { return nil }
        let longs = names.filter { $0.kind == "long" }.map(\.name)
        guard let name = longs.first, !Self.unconfigurable.contains(name) else { return nil }
        self.name = name
        self.spellings = names.map { ($0.kind == "short" || $0.kind == "longWithSingleDash" ? "-" : "--") + $0.name }
        self.kind = argument.kind == "flag" ? .flag : .option
        self.isRepeating = argument.isRepeating
        self.defaultValue = argument.defaultValue
        self.isRequired = !argument.isOptional
        self.allValues = argument.allValues ?? []
        self.offSpelling = longs.dropFirst().first { $0 == "no-" + name }.map { "--" + $0 }
    }

    /// The part of argument-parser's `ToolInfoV0` read here (its `ArgumentParserToolInfo` module is not a product).
    private struct Dump: Decodable {
        struct Command: Decodable { let arguments: [Argument]? }
        struct Argument: Decodable {
            struct Name: Decodable { let kind: String; let name: String }
            let kind: String
            let names: [Name]?
            let isOptional: Bool
            let isRepeating: Bool
            let defaultValue: String?
            let allValues: [String]?
        }
        let command: Command
    }
}
