import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// `skan report --db X --out X` once truncated a live collector's database to nothing.
    @Suite("skan report and export never write over their database", .serialized)
    struct OutputSafetyCLITests {
        @Test("--out naming the database, a hard link or a symlink to it: exit 2, and the database reports as before",
              arguments: ["report", "export"], ["same", "hardlink", "symlink", "wal"])
        func refused(command: String, alias: String) async throws {
            let folder = try TemporaryFolder.current.url
            let db = folder.appendingPathComponent("skan.sqlite").path
            let ingest = try await SkanProcess.run(["ingest", "--db", db, "Samples/postbacks/apple-examples.jsonl"])
            #expect(ingest.status == 0, "\(ingest.stderr)")
            let read = command == "report" ? ["--by", "version", "--format", "csv"] : ["--format", "jsonl"]
            let before = try await SkanProcess.run([command, "--db", db] + read)
            #expect(before.status == 0 && before.stdout.contains("4.0"), "\(before.stderr)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: db))

            var out = db
            switch alias {
            case "hardlink":
                out = folder.appendingPathComponent("out.csv").path
                try FileManager.default.linkItem(atPath: db, toPath: out)
            case "symlink":
                out = folder.appendingPathComponent("out.csv").path
                try FileManager.default.createSymbolicLink(atPath: out, withDestinationPath: db)
            case "wal":
                out = db + "-wal"
            default:
                break
            }
            let result = try await SkanProcess.run([command, "--db", db, "--out", out])
            #expect(result.status == 2)
            #expect(result.stderr.contains("--out") && result.stderr.contains(db), "\(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes)
            let after = try await SkanProcess.run([command, "--db", db] + read)
            #expect(after.status == 0)
            #expect(after.stdout == before.stdout)
        }

        @Test("--out elsewhere gets the same bytes as standard output")
        func writtenElsewhere() async throws {
            let folder = try TemporaryFolder.current.url
            let db = folder.appendingPathComponent("skan.sqlite").path
            _ = try await SkanProcess.run(["ingest", "--db", db, "Samples/postbacks/apple-examples.jsonl"])
            let out = folder.appendingPathComponent("report.csv").path
            let toFile = try await SkanProcess.run(["report", "--db", db, "--by", "version", "--format", "csv", "--out", out])
            #expect(toFile.status == 0, "\(toFile.stderr)")
            let toStdout = try await SkanProcess.run(["report", "--db", db, "--by", "version", "--format", "csv"])
            #expect(try String(contentsOfFile: out, encoding: .utf8) == toStdout.stdout)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
        }
    }
}
