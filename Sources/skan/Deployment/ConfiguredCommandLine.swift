import ArgumentParser
import Configuration
import Foundation

/// The command line of a long-running command (`serve`, `signer`, `dashboard`) with every option it left out
/// filled in from the environment or the configuration file, before argument-parser reads it: one precedence,
/// command line > environment > file > default, for every option the command declares, read from the declarations
/// themselves (``DeclaredOption``), so that a new option needs no change here.
///
/// - The file (`--config FILE`, or `SKAN_CONFIG`) is JSON: `{"serve": {"port": 8080}}`, key `serve.port`.
/// - The environment: `SKAN_SERVE_PORT`, the command and the long name upper-cased, `-` as `_`; a repeatable
///   option's values separated by commas; a flag `true`/`false` (also `1`/`0`, `yes`/`no`); an empty variable
///   counts as unset.
/// - An unknown key in the file, or an `SKAN_SERVE_*` variable that names no option, is refused with the known ones.
/// - A secret is never taken from the command line (``refuseSecrets(in:)``).
///
/// Values filled in go through argument-parser as `--name=value`, so they are checked exactly as typed ones, and a
/// refusal names the variable or key that gave the value (``annotate(_:)``).
struct ConfiguredCommandLine: Sendable {
    /// The commands configured this way.
    static var commands: [any ParsableCommand.Type] { [ServeCommand.self, SignerCommand.self, DashboardCommand.self] }

    /// The command line argument-parser reads.
    let arguments: [String]
    /// The values `--print-config` shows; `nil` for a command not configured this way.
    let effective: EffectiveConfiguration?

    /// The environment variable that names the configuration file when `--config` is not given.
    static let configVariable = "SKAN_CONFIG"

    static func name(of command: any ParsableCommand.Type) -> String {
        command.configuration.commandName ?? command._commandName
    }

    /// The environment variable of `option` of `command`: `SKAN_SERVE_ADMIN_PORT`.
    static func variable(command: String, option: String) -> String {
        "SKAN_\(command)_\(option)".uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
    }

    /// Reads `arguments` (without the program's name) against `environment`.
    static func prepare(_ arguments: [String], environment: [String: String]) async throws(CLIError) -> ConfiguredCommandLine {
        try refuseSecrets(in: arguments)
        let unchanged = ConfiguredCommandLine(arguments: arguments, effective: nil)
        guard let first = arguments.first,
              let command = commands.first(where: { name(of: $0) == first }) else { return unchanged }
        let rest = Array(arguments.dropFirst())
        let given = rest.prefix { $0 != "--" }
        // Help and the version answer the same whatever the environment holds.
        if given.contains(where: { ["-h", "--help", "--version", "--experimental-dump-help"].contains($0) }) {
            return unchanged
        }
        let commandName = name(of: command)
        let declared = Dictionary(uniqueKeysWithValues: commands.map { (name(of: $0), DeclaredOption.of($0)) })
        let options = declared[commandName] ?? []
        try refuseSecretOptions(options, in: given, command: commandName)
        try checkVariables(environment, declared: declared)

        let configPath = value(of: "--config", in: Array(given))
            ?? environment[configVariable].flatMap { $0.isEmpty ? nil : $0 }
        var file: ConfigurationFile?
        if let configPath {
            let loaded = try await ConfigurationFile.load(configPath)
            try check(loaded, declared: declared)
            file = loaded
        }

        let environmentReader = ConfigReader(provider: EnvironmentVariablesProvider(
            environmentVariables: environment,
            secretsSpecifier: .dynamic { name, value in
                name.hasPrefix("SKAN_") && (SecretText.passwordRange(in: value) != nil
                    || options.contains { $0.isSecret && variable(command: commandName, option: $0.name) == name })
            }))
        var filled: [String] = []
        var entries: [EffectiveConfiguration.Entry] = []
        for option in options {
            let key = "\(commandName).\(option.name)"
            let values: [String], source: EffectiveConfiguration.Source
            if let typed = commandLineValues(of: option, in: Array(given)) {
                (values, source) = (typed, .commandLine)
            } else if let found = try environmentValues(of: option, command: commandName, environment: environment,
                                                        reader: environmentReader) {
                (values, source) = (found, .environment(variable: variable(command: commandName, option: option.name)))
                filled += filledArguments(for: option, values: found)
            } else if let file, let found = try file.values(at: key, for: option) {
                (values, source) = (found, .file(path: file.path))
                filled += filledArguments(for: option, values: found)
            } else {
                let fallback = option.kind == .flag ? [option.defaultValue ?? "false"] : option.defaultValue.map { [$0] } ?? []
                (values, source) = (fallback, .default)
            }
            entries.append(.init(key: key, option: option, values: values, source: source))
        }
        return ConfiguredCommandLine(arguments: [first] + filled + rest,
                                     effective: EffectiveConfiguration(command: commandName, configFile: file?.path,
                                                                       entries: entries))
    }

    /// `message` (argument-parser's refusal of a value) with the variable or file that gave the value, when it
    /// names an option filled in from one: "The value 'x' is invalid for '--port <port>' (from SKAN_SERVE_PORT)".
    func annotate(_ message: String) -> String {
        for entry in effective?.entries ?? [] {
            let from: String
            switch entry.source {
            case .environment(let variable): from = variable
            case .file(let path): from = "\(entry.key) in \(path)"
            case .commandLine, .default: continue
            }
            if entry.option.spellings.contains(where: { message.contains("'\($0)") || message.contains("\($0) ") }) {
                return "\(message) (from \(from))"
            }
        }
        return message
    }

    // MARK: - Secrets

    /// Refuses a URL with a password anywhere on the command line, of any command: the command line of every process
    /// is readable by every user of the machine (`ps`, `/proc/PID/cmdline`).
    static func refuseSecrets(in arguments: [String]) throws(CLIError) {
        let command = arguments.first.flatMap { first in commands.first { name(of: $0) == first } }.map(name(of:))
        for (index, argument) in arguments.enumerated() where SecretText.passwordRange(in: argument) != nil {
            var option = argument.hasPrefix("--") ? String(argument.prefix { $0 != "=" }) : nil
            if option == argument || option == nil {
                option = index > 0 && arguments[index - 1].hasPrefix("-") ? arguments[index - 1] : nil
            }
            let shown = SecretText.masked(argument.hasPrefix("--") ? String(argument.drop { $0 != "=" }.dropFirst()) : argument)
            let named = option.map { "\($0) \(shown)" } ?? shown
            var remedy = "give the password in PGPASSWORD and leave it out of the URL"
            if let command, let option, option.hasPrefix("--") {
                let name = String(option.dropFirst(2))
                remedy = "give the URL in \(variable(command: command, option: name)) or in the configuration file's "
                    + "\(command).\(name) (mode 600), or the password in PGPASSWORD"
            }
            throw CLIError("\(named): a password on the command line is readable by every user of this machine (ps); \(remedy)")
        }
    }

    /// Refuses a secret option (``DeclaredOption/isSecret``) typed on the command line.
    private static func refuseSecretOptions(_ options: [DeclaredOption], in given: ArraySlice<String>, command: String) throws(CLIError) {
        for option in options where option.isSecret && commandLineValues(of: option, in: Array(given)) != nil {
            throw CLIError("--\(option.name) is a secret and is never read from the command line (ps shows it to every "
                + "user); give it in \(variable(command: command, option: option.name)) or the configuration file's "
                + "\(command).\(option.name)")
        }
    }

    // MARK: - Unknown names

    /// Every `SKAN_SERVE_*`, `SKAN_SIGNER_*` and `SKAN_DASHBOARD_*` variable must name an option of its command.
    private static func checkVariables(_ environment: [String: String], declared: [String: [DeclaredOption]]) throws(CLIError) {
        for (command, options) in declared.sorted(by: { $0.key < $1.key }) {
            let prefix = variable(command: command, option: "")
            let known = options.map { variable(command: command, option: $0.name) }
            for name in environment.keys.sorted() where name.hasPrefix(prefix) && !known.contains(name) {
                let hint = name == variable(command: command, option: "config") ? " (the file is named by \(configVariable))" : ""
                throw CLIError("\(name) names no option of skan \(command)\(hint)\(suggestion(for: name, among: known)); "
                    + "its variables are \(known.joined(separator: ", "))")
            }
        }
    }

    /// Every key of the file must be a command's option: `serve.port`.
    private static func check(_ file: ConfigurationFile, declared: [String: [DeclaredOption]]) throws(CLIError) {
        let known = declared.sorted { $0.key < $1.key }.flatMap { command, options in options.map { "\(command).\($0.name)" } }
        var holdsSecret = false
        for key in file.leaves.keys.sorted() {
            guard known.contains(key) else {
                let command = key.split(separator: ".").first.map(String.init) ?? key
                let scope = declared[command] == nil ? known : known.filter { $0.hasPrefix(command + ".") }
                let hint = key.hasSuffix(".config") ? " (a file cannot name another)" : ""
                throw CLIError("--config \(file.path): unknown key \(key)\(hint)\(suggestion(for: key, among: scope)); "
                    + "the keys are \(scope.joined(separator: ", "))")
            }
            let name = String(key.drop { $0 != "." }.dropFirst())
            let isSecretOption = declared.values.contains { $0.contains { $0.name == name && $0.isSecret } }
            let text = file.leaves[key] == .string ? file.reader.string(forKey: ConfigKey(key)) : nil
            if isSecretOption || text.map({ SecretText.passwordRange(in: $0) != nil }) == true { holdsSecret = true }
        }
        if holdsSecret && file.isReadableByOthers {
            throw CLIError("--config \(file.path) holds a secret and is readable by group or others; chmod 600 \(file.path)")
        }
    }

    /// " (did you mean X?)" for the nearest of `names` within a few edits, or nothing.
    static func suggestion(for name: String, among names: [String]) -> String {
        let nearest = names.map { ($0, EditDistance.between($0.lowercased(), name.lowercased())) }.min { $0.1 < $1.1 }
        guard let nearest, nearest.1 <= max(2, name.count / 5) else { return "" }
        return " (did you mean \(nearest.0)?)"
    }

    // MARK: - Values

    /// The option's values on the command line (`--port 1`, `--port=1`, a flag as `true`), `nil` when not given.
    static func commandLineValues(of option: DeclaredOption, in given: [String]) -> [String]? {
        var values: [String] = []
        var index = 0
        while index < given.count {
            let token = given[index]
            if option.kind == .flag {
                if option.spellings.contains(token) { values = ["true"] }
                if token == option.offSpelling { values = ["false"] }
            } else if let spelling = option.spellings.first(where: { token.hasPrefix($0 + "=") }) {
                values.append(String(token.dropFirst(spelling.count + 1)))
            } else if option.spellings.contains(token) {
                values.append(index + 1 < given.count ? given[index + 1] : "")
                index += 1
            }
            index += 1
        }
        return values.isEmpty ? nil : values
    }

    /// The value of a single-valued option on the command line (`--config FILE` or `--config=FILE`), the last
    /// one when repeated.
    private static func value(of spelling: String, in given: [String]) -> String? {
        var found: String?
        for (index, token) in given.enumerated() {
            if token.hasPrefix(spelling + "=") { found = String(token.dropFirst(spelling.count + 1)) }
            if token == spelling, index + 1 < given.count { found = given[index + 1] }
        }
        return found
    }

    /// The option's values from its environment variable, through swift-configuration's environment provider.
    private static func environmentValues(of option: DeclaredOption, command: String, environment: [String: String],
                                          reader: ConfigReader) throws(CLIError) -> [String]? {
        let name = variable(command: command, option: option.name)
        guard let raw = environment[name], !raw.isEmpty else { return nil }
        let key = ConfigKey(["skan", command, option.name])
        switch option.kind {
        case .flag:
            guard let value = try? reader.requiredBool(forKey: key) else {
                throw CLIError("\(name)=\(raw): expected true or false (or 1/0, yes/no)")
            }
            return [String(value)]
        case .option where option.isRepeating:
            return reader.stringArray(forKey: key, isSecret: option.isSecret)
        case .option:
            return reader.string(forKey: key, isSecret: option.isSecret).map { [$0] }
        }
    }

    /// What goes on the command line for values from the environment or the file: `--name=value` (a value may
    /// start with a dash), once per value of a repeatable option; a flag's on or off spelling.
    private static func filledArguments(for option: DeclaredOption, values: [String]) -> [String] {
        switch option.kind {
        case .flag:
            let on = values.last == "true"
            if on { return ["--\(option.name)"] }
            return option.offSpelling.map { [$0] } ?? []
        case .option:
            return values.map { "--\(option.name)=\($0)" }
        }
    }
}
