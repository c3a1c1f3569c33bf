import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// `--out PATH` writes through whatever PATH is, as the shell's `>` does. Writing a new file and renaming it over
    /// the path replaced `/dev/null` itself with a regular file when `skan simulate --out /dev/null` ran as root; a
    /// symbolic link shows the same thing without touching the machine's devices.
    @Suite("--out writes through the path", .serialized)
    struct OutputPathCLITests {
        static let commands: [[String]] = [
            ["simulate", "--campaign", "Samples/campaigns/skan-4.0-subscription.json", "--devices", "20", "--out"],
            ["bench", "postbacks", "--count", "5", "--out"],
        ]

        @Test("a symbolic link stays a link and its target gets the lines", arguments: commands)
        func symbolicLink(command: [String]) async throws {
            let folder = try TemporaryFolder.current.url
            let target = folder.appendingPathComponent("target.jsonl").path
            let link = folder.appendingPathComponent("link.jsonl").path
            try Data("old\n".utf8).write(to: URL(fileURLWithPath: target))
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            let run = try await SkanProcess.run(command + [link])
            #expect(run.status == 0, "\(run.stderr)")
            let kind = try FileManager.default.attributesOfItem(atPath: link)[.type] as? FileAttributeType
            #expect(kind == .typeSymbolicLink, "the link was replaced by a regular file")
            let lines = try String(contentsOfFile: target, encoding: .utf8).split(separator: "\n")
            #expect(!lines.isEmpty && !lines.contains("old"), "\(lines.prefix(2))")
        }

        @Test("a folder that does not exist is a one-line error naming the path")
        func missingFolder() async throws {
            let run = try await SkanProcess.run(["bench", "postbacks", "--count", "1", "--out", "/nonexistent-skan/x.jsonl"])
            #expect(run.status != 0)
            #expect(run.stderr.contains("cannot write /nonexistent-skan/x.jsonl: No such file or directory"), "\(run.stderr)")
        }
    }
}
