import Foundation
import Testing

/// Reading and running the examples of README.md and docs/; the markup is described on
/// ``CommandLineSuites/ReadmeExamplesCLITests``.
enum DocExamples {
    /// README.md and every Markdown file under docs/, as paths relative to the package root, sorted.
    static func documents() -> [String] {
        var paths = ["README.md"]
        let docs = SkanProcess.packageRoot.appendingPathComponent("docs")
        if let walker = FileManager.default.enumerator(atPath: docs.path) {
            for case let path as String in walker where path.hasSuffix(".md") { paths.append("docs/" + path) }
        }
        return paths.sorted()
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: SkanProcess.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    struct Command {
        /// The command as bash runs it (continuation lines joined, without a trailing ` &`).
        var text: String
        /// Its 1-based line in its file, for failure messages.
        var line: Int
        var expected: [String]
        var background: Bool
    }

    struct Block {
        var commands: [Command]
        var runsServer: Bool { commands.contains(where: \.background) }
    }

    static func blocks(in markdown: String) -> [Block] {
        var blocks: [Block] = []
        var current: Block?
        var continuing = false
        for (number, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).enumerated() {
            if current == nil {
                if line.trimmingCharacters(in: .whitespaces) == "```console" { current = Block(commands: []) }
                continue
            }
            if line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current!)
                current = nil
                continuing = false
                continue
            }
            if continuing, var last = current!.commands.popLast() {
                last.text += "\n" + line
                continuing = line.hasSuffix("\\")
                current!.commands.append(last)
            } else if line.hasPrefix("$ ") {
                current!.commands.append(Command(text: String(line.dropFirst(2)), line: number + 1, expected: [], background: false))
                continuing = line.hasSuffix("\\")
            } else if var last = current!.commands.popLast() {
                last.expected.append(line)
                current!.commands.append(last)
            }
        }
        return blocks.map { block in
            Block(commands: block.commands.map { command in
                var command = command
                if command.text.hasSuffix(" &") {
                    command.text = String(command.text.dropLast(2))
                    command.background = true
                }
                return command
            })
        }
    }

    /// One bash script for every block: before each command a marker line (ASCII record separator and its number)
    /// so the output can be split per command, keeping `$?` from the command before for `echo $?`.
    /// `text` with the examples' ports (8080, 8443, 9080) replaced by the free ones.
    static func localize(_ text: String, ports: [String: Int]) -> String {
        ports.reduce(text) { text, port in text.replacingOccurrences(of: port.key, with: "\(port.value)") }
    }

    static func script(for blocks: [Block], ports: [String: Int]) -> String {
        var script = "exec 2>&1\nservers=\n"
        var number = 0
        for block in blocks {
            for command in block.commands {
                let text = block.runsServer ? localize(command.text, ports: ports) : command.text
                script += "status=$?; printf '\\n\\036%d\\n' \(number); (exit $status)\n"
                if command.background {
                    let log = ".readme-server-\(number).out"
                    let lines = max(1, command.expected.count)
                    // The log exists before the server starts: under load the wait below could read it before
                    // the background shell had opened it.
                    script += ": > \(log)\n\(text) > \(log) 2>&1 &\nserver=$!; servers=\"$servers $server\"\n"
                    // Wait (at most 60 s) until it printed the lines the page shows, or died.
                    script += "for i in $(seq 600); do [ \"$(wc -l < \(log))\" -ge \(lines) ] && break; kill -0 $server 2>/dev/null || break; sleep 0.1; done\n"
                    script += "head -n \(lines) \(log)\n"
                } else {
                    script += text + "\n"
                }
                number += 1
            }
            if block.runsServer {
                script += "status=$?; [ -n \"$servers\" ] && kill $servers && wait $servers; servers=; (exit $status)\n"
            }
        }
        return script
    }

    static func runBash(_ script: String, in folder: URL, tmp: URL, timeout: TimeInterval) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["--noprofile", "--norc", "-c", script]
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = SkanProcess.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["TMPDIR"] = tmp.path
        // `--help` wraps at the terminal's width, or at COLUMNS when there is no terminal: the pages show 80.
        environment["COLUMNS"] = "80"
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // A command that never ends (a server run in the foreground) must fail the test, not hang it.
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        return String(decoding: data, as: UTF8.self)
    }

    /// What each command printed, by the markers the script wrote.
    static func split(_ output: String, count: Int) -> [[String]] {
        var chunks: [[String]] = []
        for part in output.components(separatedBy: "\n\u{1E}").dropFirst() {
            // A terminal shows CRLF (the CSV reports' line end) as a plain line end, and so do the pages.
            // (Foundation's replacing works on UTF-16 units: to Swift, "\r\n" is one Character, not a "\n".)
            var lines = part.replacingOccurrences(of: "\r\n", with: "\n")
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines.removeFirst()  // the marker's number
            chunks.append(lines)
        }
        return chunks
    }

    /// A description of the first line that differs, or nil when `actual` matches `expected` under the rule.
    static func firstMismatch(expected: [String], actual: [String]) -> String? {
        func trimmed(_ lines: [String]) -> [String] {
            var lines = lines
            while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
            return lines
        }
        let expected = trimmed(expected), actual = trimmed(actual)
        for index in 0..<max(expected.count, actual.count) {
            guard index < expected.count else { return "line \(index + 1) is printed but not on the page" }
            guard index < actual.count else { return "line \(index + 1) is on the page but not printed" }
            if !matches(pattern: expected[index], line: actual[index]) { return "line \(index + 1) differs" }
        }
        return nil
    }

    /// The masking rule: `…` matches any run of characters within the line; the rest must be equal.
    static func matches(pattern: String, line: String) -> Bool {
        let pieces = pattern.components(separatedBy: "…")
        guard pieces.count > 1 else { return pattern == line }
        guard line.hasPrefix(pieces[0]), line.dropFirst(pieces[0].count).hasSuffix(pieces.last!),
              line.count >= pieces[0].count + pieces.last!.count else { return false }
        var rest = line.dropFirst(pieces[0].count).dropLast(pieces.last!.count)
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let range = rest.range(of: piece) else { return false }
            rest = rest[range.upperBound...]
        }
        return true
    }

    /// A port nothing listens on now (bound to 0 and released), for the examples' servers.
    /// Of the top-level `names` in `folder`, those the package's .gitignore does not cover (`git check-ignore`,
    /// reading the rules only: `--no-index`), a folder named with its trailing slash; none outside a git checkout.
    static func notIgnored(_ names: [String], in folder: URL) throws -> [String] {
        guard !names.isEmpty,
              FileManager.default.fileExists(atPath: SkanProcess.packageRoot.appendingPathComponent(".git").path) else { return [] }
        let paths = names.map { name in
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder)
            return isFolder.boolValue ? name + "/" : name
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "check-ignore", "--no-index", "--"] + paths
        process.currentDirectoryURL = SkanProcess.packageRoot
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let ignored = Set(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map(String.init))
        process.waitUntilExit()
        return paths.filter { !ignored.contains($0) }
    }

    static func freePort() throws -> Int {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    // MARK: Help and synopses

    struct HelpOption {
        var name: String
        var defaultValue: String?
    }

    /// The subcommand names under SUBCOMMANDS in `skan --help`.
    static func subcommands(inHelp help: String) -> [String] {
        section("SUBCOMMANDS", of: help).compactMap { line in
            // A name is indented by two spaces; a wrapped description, by more.
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let first = line.split(separator: " ").first, !first.hasPrefix("-") else { return nil }
            let name = first.replacingOccurrences(of: "(default)", with: "")
            return name != "help" && name.allSatisfy({ $0.isLowercase || $0 == "-" }) ? name : nil
        }
    }

    /// The long options under OPTIONS in a subcommand's help (`-h, --help` aside), with the default each states.
    static func options(inHelp help: String) -> [HelpOption] {
        var entries: [String] = []
        for line in section("OPTIONS", of: help) {
            if line.range(of: #"^  (-\w, )?--[a-z0-9-]+"#, options: .regularExpression) != nil {
                entries.append(line)
            } else if !entries.isEmpty {
                entries[entries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        return entries.compactMap { entry in
            guard let range = entry.range(of: #"--[a-z0-9-]+"#, options: .regularExpression) else { return nil }
            let name = String(entry[range])
            guard name != "--help", name != "--version" else { return nil }
            var defaultValue: String?
            if let found = entry.range(of: #"\(default: [^)]*\)"#, options: .regularExpression) {
                defaultValue = String(entry[found].dropFirst("(default: ".count).dropLast())
            }
            // A default with a space is prose in the help text ("a new random one", "one per core"), described
            // in the page's text rather than written as a value in the synopsis.
            if defaultValue?.contains(" ") == true { defaultValue = nil }
            return HelpOption(name: name, defaultValue: defaultValue)
        }
    }

    /// The lines of the help section titled `title` (up to the next title or the end).
    static func section(_ title: String, of help: String) -> [String] {
        var lines: [String] = []
        var inside = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("\(title):") { inside = true; continue }
            if inside, let first = line.first, !first.isWhitespace { break }
            if inside, !line.isEmpty { lines.append(line) }
        }
        return lines
    }

    /// The text of every ```text block in `markdown` whose first line starts with `skan <subcommand>`.
    static func synopsis(of subcommand: String, in markdown: String) -> String {
        var result = ""
        var block: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if block == nil {
                if trimmed == "```text" { block = [] }
            } else if trimmed == "```" {
                if let first = block!.first, first.hasPrefix("skan \(subcommand) ") || first == "skan \(subcommand)" {
                    result += block!.joined(separator: "\n") + "\n"
                }
                block = nil
            } else {
                block!.append(line)
            }
        }
        return result
    }

    /// Whether `synopsis` names `option` as a whole word (`--to` is not found in `--total`).
    static func synopsis(_ synopsis: String, names option: String) -> Bool {
        synopsis.range(of: "(^|[^a-z0-9-])\(option)([^a-z0-9-]|$)", options: .regularExpression) != nil
    }
}
