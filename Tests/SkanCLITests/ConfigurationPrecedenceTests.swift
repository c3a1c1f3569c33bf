import ArgumentParser
import Foundation
import SKANTestSupport
import Testing
@testable import skan

/// Every option of `serve`, `signer` and `dashboard`, as their declarations list them (so an option added
/// tomorrow is a case here without an edit), reached from the configuration file and from the environment, in one
/// precedence: command line > environment > file > default. Each case compares what argument-parser parsed
/// (the command's dump) with the same value typed on the command line.
@Suite("Configuration from the file and the environment")
struct ConfigurationPrecedenceTests {
    /// One option of one command, with two values it accepts that parse differently.
    struct Case: CustomTestStringConvertible, Sendable {
        let command: String
        let option: DeclaredOption
        /// What else the command needs to parse (its required options other than this one).
        let required: [String]
        let first: String
        let second: String
        var testDescription: String { "\(command) --\(option.name)" }
    }

    static let cases: [Case] = ConfiguredCommandLine.commands.flatMap { command -> [Case] in
        let name = ConfiguredCommandLine.name(of: command)
        let options = DeclaredOption.of(command)
        return options.compactMap { option in
            let required = options.filter { $0 != option && $0.kind == .option && $0.defaultValue == nil && $0.isRequired }
                .flatMap { ["--\($0.name)", "7"] }
            let candidates = option.kind == .flag ? ["true", "false"]
                : option.allValues.isEmpty ? ["7", "9", "11.5", "text"] : option.allValues.reversed()
            let parsing = candidates.filter { (try? parse(typed(name, option, $0) + required)) != nil }
            guard let first = parsing.first,
                  let second = parsing.dropFirst().first(where: { dumped(typed(name, option, $0) + required) != dumped(typed(name, option, first) + required) })
            else { return nil }
            return Case(command: name, option: option, required: required, first: first, second: second)
        }
    }

    @Test("every declared option of the three commands has a case")
    func everyOptionHasACase() {
        for command in ConfiguredCommandLine.commands {
            let name = ConfiguredCommandLine.name(of: command)
            let options = DeclaredOption.of(command)
            #expect(options.count >= 8, "\(name)")
            #expect(Set(Self.cases.filter { $0.command == name }.map(\.option.name)) == Set(options.map(\.name)), "\(name)")
        }
        #expect(Self.cases.contains { $0.command == "serve" && $0.option.name == "log-format" })
    }

    @Test("the file gives an option its value", arguments: cases)
    func fromFile(_ c: Case) async throws {
        try await withFile([c.command: [c.option.name: c.second]]) { file async throws in
            #expect(try await configured([c.command, "--config", file] + c.required, [:])
                    == typed(c, c.second, ["--config", file]))
        }
    }

    @Test("the environment gives an option its value, and wins over the file", arguments: cases)
    func fromEnvironment(_ c: Case) async throws {
        let variable = ConfiguredCommandLine.variable(command: c.command, option: c.option.name)
        #expect(try await configured([c.command] + c.required, [variable: c.first]) == typed(c, c.first))
        try await withFile([c.command: [c.option.name: c.second]]) { file async throws in
            #expect(try await configured([c.command] + c.required, [variable: c.first, "SKAN_CONFIG": file]) == typed(c, c.first))
        }
    }

    @Test("the command line wins over the environment and the file", arguments: cases)
    func commandLineWins(_ c: Case) async throws {
        // A flag can only be typed on; its case's first value is `true`.
        let variable = ConfiguredCommandLine.variable(command: c.command, option: c.option.name)
        let typedArguments = Self.typed(c.command, c.option, c.first) + c.required
        try await withFile([c.command: [c.option.name: c.second]]) { file async throws in
            #expect(try await configured(typedArguments + ["--config", file], [variable: c.second])
                    == typed(c, c.first, ["--config", file]))
        }
    }

    @Test("another command's key or variable leaves the option at its default", arguments: cases)
    func otherCommandsDoNotApply(_ c: Case) async throws {
        let others = ConfiguredCommandLine.commands.filter {
            ConfiguredCommandLine.name(of: $0) != c.command && DeclaredOption.of($0).contains { $0.name == c.option.name }
        }.map(ConfiguredCommandLine.name(of:))
        let environment = Dictionary(uniqueKeysWithValues: others.map {
            (ConfiguredCommandLine.variable(command: $0, option: c.option.name), c.first)
        })
        var object: [String: [String: Any]] = [c.command: [:]]
        for other in others { object[other] = [c.option.name: c.second] }
        try await withFile(object) { file async throws in
            #expect(try await configured([c.command, "--config", file] + c.required, environment)
                    == Self.dumped([c.command, "--config", file] + c.required))
        }
    }

    @Test("a repeatable option takes an array from the file and a comma-separated list from the environment")
    func repeatable() async throws {
        let expected = Self.dumped(["serve", "--path", "/a", "--path", "/b"])
        #expect(try await configured(["serve"], ["SKAN_SERVE_PATH": "/a,/b"]) == expected)
        try await withFile(["serve": ["path": ["/a", "/b"]]]) { file async throws in
            #expect(try await configured(["serve", "--config", file], [:])
                    == Self.dumped(["serve", "--path", "/a", "--path", "/b", "--config", file]))
        }
    }

    @Test("an unknown key in the file is refused with the nearest known one")
    func unknownFileKey() async throws {
        try await withFile(["serve": ["prot": 8080]]) { file async throws in
            let error = await #expect(throws: CLIError.self) {
                _ = try await ConfiguredCommandLine.prepare(["serve", "--config", file], environment: [:])
            }
            #expect(error?.message.hasPrefix("--config \(file): unknown key serve.prot (did you mean serve.port?); the keys are serve.db, ") == true,
                    "\(error?.message ?? "")")
        }
        try await withFile(["serer": ["port": 8080]]) { file async throws in
            let error = await #expect(throws: CLIError.self) {
                _ = try await ConfiguredCommandLine.prepare(["signer", "--key", "k", "--config", file], environment: [:])
            }
            #expect(error?.message.contains("unknown key serer.port (did you mean serve.port?)") == true, "\(error?.message ?? "")")
        }
    }

    @Test("an SKAN_SERVE_ variable that names no option is refused with the nearest one")
    func unknownVariable() async throws {
        let error = await #expect(throws: CLIError.self) {
            _ = try await ConfiguredCommandLine.prepare(["dashboard"], environment: ["SKAN_SERVE_ADMIN_PROT": "1"])
        }
        #expect(error?.message.hasPrefix("SKAN_SERVE_ADMIN_PROT names no option of skan serve (did you mean SKAN_SERVE_ADMIN_PORT?); its variables are SKAN_SERVE_DB,") == true,
                "\(error?.message ?? "")")
        // Other SKAN_ variables (the tests' own, say) are not the commands' business.
        _ = try await ConfiguredCommandLine.prepare(["serve"], environment: ["SKAN_REQUIRE_POSTGRES": "1"])
    }

    @Test("a password in a URL on the command line is refused; from the environment it is taken and masked")
    func passwordOnCommandLine() async throws {
        let url = "postgres://skan:hunter2@db.internal:5432/skan"
        for arguments in [["serve", "--db", url], ["serve", "--db=\(url)"]] {
            let error = await #expect(throws: CLIError.self) {
                _ = try await ConfiguredCommandLine.prepare(arguments, environment: [:])
            }
            #expect(error?.message == "--db postgres://skan:****@db.internal:5432/skan: a password on the command line is "
                    + "readable by every user of this machine (ps); give the URL in SKAN_SERVE_DB or in the configuration "
                    + "file's serve.db (mode 600), or the password in PGPASSWORD")
        }
        let report = await #expect(throws: CLIError.self) {
            _ = try await ConfiguredCommandLine.prepare(["report", "--db", url], environment: [:])
        }
        #expect(report?.message.hasSuffix("give the password in PGPASSWORD and leave it out of the URL") == true)
        let prepared = try await ConfiguredCommandLine.prepare(["serve"], environment: ["SKAN_SERVE_DB": url])
        #expect(prepared.arguments == ["serve", "--db=\(url)"])
        let printed = try #require(prepared.effective).rendered()
        #expect(printed.contains("serve.db") && printed.contains("postgres://skan:****@db.internal:5432/skan"))
        #expect(!printed.contains("hunter2"))
    }

    @Test("a configuration file holding a password must not be readable by others")
    func secretFileMode() async throws {
        try await withFile(["serve": ["db": "postgres://skan:hunter2@db/skan"]]) { file async throws in
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
            let error = await #expect(throws: CLIError.self) {
                _ = try await ConfiguredCommandLine.prepare(["serve", "--config", file], environment: [:])
            }
            #expect(error?.message == "--config \(file) holds a secret and is readable by group or others; chmod 600 \(file)")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            _ = try await ConfiguredCommandLine.prepare(["serve", "--config", file], environment: [:])
        }
    }

    @Test("a flag's value must be a boolean, in the file and in the environment")
    func flagValues() async throws {
        let error = await #expect(throws: CLIError.self) {
            _ = try await ConfiguredCommandLine.prepare(["serve"], environment: ["SKAN_SERVE_LOG_BODIES": "maybe"])
        }
        #expect(error?.message == "SKAN_SERVE_LOG_BODIES=maybe: expected true or false (or 1/0, yes/no)")
        try await withFile(["serve": ["log-bodies": 1]]) { file async throws in
            let error = await #expect(throws: CLIError.self) {
                _ = try await ConfiguredCommandLine.prepare(["serve", "--config", file], environment: [:])
            }
            #expect(error?.message == "serve.log-bodies in \(file): expected true or false")
        }
        #expect(try await configured(["serve"], ["SKAN_SERVE_LOG_BODIES": "yes"]) == Self.dumped(["serve", "--log-bodies"]))
    }

    @Test("print-config names each value's source")
    func printConfigSources() async throws {
        try await withFile(["serve": ["host": "0.0.0.0", "port": 9000]]) { file async throws in
            let prepared = try await ConfiguredCommandLine.prepare(["serve", "--port", "9001", "--config", file],
                                                                    environment: ["SKAN_SERVE_HOST": "::1"])
            let lines = try #require(prepared.effective).rendered().split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("serve.port ") && $0.contains("= 9001") && $0.hasSuffix("# command line") })
            #expect(lines.contains { $0.hasPrefix("serve.host ") && $0.contains("= ::1") && $0.hasSuffix("# environment SKAN_SERVE_HOST") })
            #expect(lines.contains { $0.hasPrefix("serve.durability ") && $0.contains("= full") && $0.hasSuffix("# default") })
            #expect(lines[1] == "# configuration file: \(file)")
        }
    }

    // MARK: - Helpers

    /// The dump of what argument-parser makes of `arguments` after the environment and the file filled them in.
    func configured(_ arguments: [String], _ environment: [String: String]) async throws -> String {
        Self.dumped(try await ConfiguredCommandLine.prepare(arguments, environment: environment).arguments)
    }

    func typed(_ c: Case, _ value: String, _ extra: [String] = []) -> String {
        Self.dumped(Self.typed(c.command, c.option, value) + c.required + extra)
    }

    /// The command line a user types for `value`: `--name value`, or a flag's spelling.
    static func typed(_ command: String, _ option: DeclaredOption, _ value: String) -> [String] {
        switch option.kind {
        case .flag: value == "true" ? [command, "--\(option.name)"] : [command] + (option.offSpelling.map { [$0] } ?? [])
        case .option: [command, "--\(option.name)", value]
        }
    }

    static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        try Skan.parseAsRoot(arguments)
    }

    static func dumped(_ arguments: [String]) -> String {
        guard let command = try? parse(arguments) else { return "unparsable: \(arguments)" }
        var text = ""
        dump(command, to: &text)
        return text
    }

    /// A 0600 JSON file of `object`, a number where the text is one.
    func withFile(_ object: [String: [String: Any]], _ body: (String) async throws -> Void) async throws {
        try await withTemporaryFolder("config") { folder in
            let json = object.mapValues { options in
                options.mapValues { value -> Any in
                    guard let text = value as? String else { return value }
                    if text == "true" || text == "false" { return text == "true" }
                    return Int(text) ?? Double(text).map { $0 as Any } ?? text
                }
            }
            let path = folder.appendingPathComponent("skan.json").path
            let data = try JSONSerialization.data(withJSONObject: json)
            #expect(FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]))
            try await body(path)
        }
    }
}
