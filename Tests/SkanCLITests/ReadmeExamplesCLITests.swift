import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// The examples of README.md and of every page under docs/ run as printed, and the reference pages' synopses
    /// agree with `skan <command> --help`.
    ///
    /// The markup these tests read (README.md says so in a comment above its examples):
    ///
    /// - An example is a fenced block opened with "```console". A line starting with `$ ` is a command (a line
    ///   ending in `\` continues it on the next line); the lines after it, up to the next command or the end of the
    ///   block, are what it prints, standard output and standard error together, as a terminal shows them.
    /// - The masking rule: in a printed line, `…` matches any run of characters (none included) within that line.
    ///   It stands for what legitimately differs between runs: times, ports, temporary paths, random nonces, ids,
    ///   keys and ECDSA signatures. Everything else must match exactly; trailing blank lines are not compared, and
    ///   a printed line's CR before its LF (CSV's line end) is dropped, as a terminal shows none.
    /// - A command ending in ` &` is a server (`skan serve`): it runs in the background, its output is compared
    ///   once it has printed as many lines as the page shows under it, and it is stopped (SIGTERM) at the end of
    ///   its block. In such a block the ports 8080, 8443 and 9080 are replaced everywhere by free ports, since they
    ///   may be taken on the machine running the tests.
    ///
    /// Each file's blocks run in order in one bash session, in a new folder holding links to the package's Keys/
    /// and Samples/, with the built `skan` first on PATH, TMPDIR inside the folder (so `skan demo` leaves nothing
    /// behind) and COLUMNS=80 (the width `--help` wraps at). So a page makes what its examples need in its own
    /// blocks. Fewer examples than the floors below fail, as does any example whose output differs.
    @Suite("README.md and docs/", .serialized)
    struct ReadmeExamplesCLITests {
        /// The floors: today 18 files hold 51 blocks of 124 commands; losing many of them is a defect, not a pass.
        static let minimumDocuments = 16
        static let minimumBlocks = 40

        @Test("README.md and docs/ hold at least the floor of console examples, README.md among them")
        func examplesExist() throws {
            let documents = DocExamples.documents()
            let blocks = try documents.map { try DocExamples.blocks(in: DocExamples.read($0)) }
            let withExamples = zip(documents, blocks).filter { !$0.1.isEmpty }.map(\.0)
            #expect(withExamples.contains("README.md"), "README.md has no ```console example")
            #expect(withExamples.count >= Self.minimumDocuments, "only \(withExamples.count) files have examples: \(withExamples)")
            #expect(blocks.joined().count >= Self.minimumBlocks, "only \(blocks.joined().count) console blocks")
            for (document, fileBlocks) in zip(documents, blocks) {
                for block in fileBlocks {
                    #expect(!block.commands.isEmpty, "\(document) has a console block without a `$ ` command")
                }
            }
        }

        @Test("every console example prints what its page shows", arguments: DocExamples.documents())
        func examplesRunAsPrinted(document: String) async throws {
            let blocks = DocExamples.blocks(in: try DocExamples.read(document))
            let commands = blocks.flatMap(\.commands)
            guard !commands.isEmpty else { return }  // a page without examples; the floors are checked above

            let folder = try TemporaryFolder.current.url
            for name in ["Keys", "Samples"] {
                try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(name),
                                                           withDestinationURL: SkanProcess.packageRoot.appendingPathComponent(name))
            }
            let tmp = folder.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)

            let ports = ["8080": try DocExamples.freePort(), "8443": try DocExamples.freePort(),
                         "9080": try DocExamples.freePort()]
            let script = DocExamples.script(for: blocks, ports: ports)
            let output = try await SkanProcess.offThread {
                try DocExamples.runBash(script, in: folder, tmp: tmp, timeout: 600)
            }
            let printed = DocExamples.split(output, count: commands.count)
            var index = 0
            for block in blocks {
                for command in block.commands {
                    let expected = block.runsServer ? command.expected.map { DocExamples.localize($0, ports: ports) }
                                                    : command.expected
                    let actual = index < printed.count ? printed[index] : ["(the session stopped before this command ran)"]
                    let mismatch = DocExamples.firstMismatch(expected: expected, actual: actual)
                    #expect(mismatch == nil, """
                        \(document) line \(command.line): $ \(command.text)
                        \(mismatch ?? "")
                        expected:
                        \(expected.joined(separator: "\n"))
                        printed:
                        \(actual.joined(separator: "\n"))
                        """)
                    index += 1
                }
            }
            // Someone running the examples by hand runs them in a clone: what they make must not show in git status.
            let made = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { !["Keys", "Samples", "tmp"].contains($0) && !$0.hasPrefix(".readme-server-") }
            let unignored = try DocExamples.notIgnored(made, in: folder)
            #expect(unignored.isEmpty, "\(document)'s examples make \(unignored), which .gitignore does not cover")
        }

        @Test("the masking rule: … matches any run within one line, and nothing else varies")
        func maskingRule() {
            #expect(DocExamples.matches(pattern: "key …", line: "key MFkwEwYH+/="))
            #expect(DocExamples.matches(pattern: "to http://127.0.0.1:…/postbacks in … s", line: "to http://127.0.0.1:40123/postbacks in 2.9 s"))
            #expect(DocExamples.matches(pattern: "a…b", line: "ab"))
            #expect(!DocExamples.matches(pattern: "a…b", line: "a b c"))
            #expect(!DocExamples.matches(pattern: "accepted 5", line: "accepted 6"))
            #expect(DocExamples.firstMismatch(expected: ["one", "…"], actual: ["one"]) != nil, "… never stands for a missing line")
            #expect(DocExamples.firstMismatch(expected: ["one", ""], actual: ["one"]) == nil, "trailing blank lines are not compared")
        }

        /// Every subcommand path of `skan` (`["verify"]`, `["bench", "core"]` …), by walking `--help`.
        static func subcommandPaths() async throws -> [[String]] {
            let root = try await SkanProcess.run(["--help"])
            var pending = DocExamples.subcommands(inHelp: root.stdout).map { [$0] }
            var leaves: [[String]] = []
            while !pending.isEmpty {
                let path = pending.removeFirst()
                let help = try await SkanProcess.run(path + ["--help"])
                // A command with subcommands of its own (`skan bench`) is documented by theirs.
                let nested = DocExamples.subcommands(inHelp: help.stdout)
                if nested.isEmpty { leaves.append(path) } else { pending += nested.map { path + [$0] } }
            }
            return leaves
        }

        @Test("every subcommand has a reference page in docs/cli/, and every page there is a subcommand's")
        func everySubcommandHasAPage() async throws {
            let root = try await SkanProcess.run(["--help"])
            let names = DocExamples.subcommands(inHelp: root.stdout)
            try #require(names.count >= 10, "skan --help lists too few subcommands: \(root.stdout)")
            let folder = SkanProcess.packageRoot.appendingPathComponent("docs/cli")
            let pages = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasSuffix(".md") && $0 != "README.md" }.map { String($0.dropLast(3)) }
            #expect(Set(names).subtracting(pages).isEmpty, "no docs/cli page for \(Set(names).subtracting(pages).sorted())")
            #expect(Set(pages).subtracting(names).isEmpty, "docs/cli pages for no subcommand: \(Set(pages).subtracting(names).sorted())")
            let index = try DocExamples.read("docs/cli/README.md")
            for name in names {
                #expect(index.contains("(\(name).md)"), "docs/cli/README.md does not link \(name).md")
            }
        }

        @Test("every option of every subcommand's --help appears, with its default, in its reference page's synopsis")
        func synopsesMatchHelp() async throws {
            let paths = try await Self.subcommandPaths()
            try #require(paths.count >= 12, "skan --help lists too few subcommands: \(paths)")
            for path in paths {
                let subcommand = path.joined(separator: " ")
                let page = "docs/cli/\(path[0]).md"
                let markdown = try DocExamples.read(page)
                let help = try await SkanProcess.run(path + ["--help"])
                #expect(help.status == 0, "skan \(subcommand) --help: \(help.stderr)")
                let synopsis = DocExamples.synopsis(of: subcommand, in: markdown)
                #expect(!synopsis.isEmpty, "\(page) has no ```text synopsis starting `skan \(subcommand)`")
                let options = DocExamples.options(inHelp: help.stdout)
                #expect(!options.isEmpty, "skan \(subcommand) --help lists no option")
                for option in options {
                    #expect(DocExamples.synopsis(synopsis, names: option.name),
                            "\(page)'s synopsis of skan \(subcommand) lacks \(option.name)")
                    if let value = option.defaultValue {
                        let shown = "(^|[^a-z0-9-])\(option.name) [^ \\]\\[]*=\(NSRegularExpression.escapedPattern(for: value))([ \\]\n]|$)"
                        #expect(synopsis.range(of: shown, options: .regularExpression) != nil,
                                "\(page)'s synopsis of skan \(subcommand) does not show \(option.name)'s default \(value) as `=\(value)`")
                    }
                }
            }
        }
    }
}
