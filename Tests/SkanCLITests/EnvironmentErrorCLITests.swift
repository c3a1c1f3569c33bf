import Foundation
import SKANTestSupport
import Testing

// Runs the skan binary: one test at a time with the other process suites (SkanProcess.swift says why).
extension CommandLineSuites {
    /// Errors from the environment are one line naming the thing and the fix (issue 37), not a library's words.
    @Suite("Errors from the environment")
    struct EnvironmentErrorCLITests {
        @Test("an unknown command lists the commands and the nearest one")
        func unknownCommand() async throws {
            let result = try await SkanProcess.run(["reprot", "--db", "x.sqlite"])
            #expect(result.status == 2)
            #expect(result.stderr == "skan: unknown command 'reprot' (did you mean report?); commands are verify, sign, "
                    + "verify-impression, keygen, serve, relay, signer, dashboard, ingest, simulate, report, campaigns, demo, export, bench\n")
            let far = try await SkanProcess.run(["zzzzzzzz"])
            #expect(far.stderr.hasPrefix("skan: unknown command 'zzzzzzzz'; commands are verify,"), "\(far.stderr)")
            #expect(try await SkanProcess.run(["help", "report"]).status == 0)
        }

        @Test("ingest names the file and line of each refused record, the first ten, then how many more")
        func ingestNamesLines() async throws {
            let folder = try TemporaryFolder.current.url
            let file = folder.appendingPathComponent("bad.jsonl")
            try (0..<12).map { $0 == 3 ? "{\"version\":\"4.0\"}" : "not json \($0)" }.joined(separator: "\n")
                .write(to: file, atomically: true, encoding: .utf8)
            let result = try await SkanProcess.run(["ingest", "--db", folder.appendingPathComponent("x.sqlite").path, file.path])
            #expect(result.status == 1)
            let named = result.stderr.split(separator: "\n").filter { $0.hasPrefix("skan: \(file.path):") }
            #expect(named.count == 10)
            #expect(named.first == "skan: \(file.path):1: malformed: the body is not a JSON object: expected a JSON object starting with '{', found 'n' at byte 0")
            #expect(named.contains { $0.hasPrefix("skan: \(file.path):4: malformed") })
            #expect(result.stderr.contains("skan: and 2 more refused records\n"))
            #expect(result.stdout.contains("malformed 12"))
        }

        @Test("a database in a folder that does not exist names the folder")
        func missingFolder() async throws {
            let folder = try TemporaryFolder.current.url
            let missing = folder.appendingPathComponent("not-here")
            let input = folder.appendingPathComponent("in.jsonl")
            try "{}".write(to: input, atomically: true, encoding: .utf8)
            let result = try await SkanProcess.run(["ingest", "--db", missing.appendingPathComponent("x.sqlite").path, input.path])
            #expect(result.status != 0)
            #expect(result.stderr.contains("the folder \(missing.path) does not exist; create it first"), "\(result.stderr)")
            #expect(!result.stderr.contains("SQLite error"))
        }

        @Test("a missing campaign file says so")
        func missingCampaign() async throws {
            let result = try await SkanProcess.run(["simulate", "--campaign", "/nonexistent/campaign.json", "--out", "/dev/null"])
            #expect(result.status != 0)
            #expect(result.stderr == "skan: cannot read campaign file /nonexistent/campaign.json: the folder /nonexistent does not exist\n", "\(result.stderr)")
        }

        @Test("bench run outside the package root says where to run it")
        func benchOutsideRoot() async throws {
            let folder = try TemporaryFolder.current.url
            let result = try await SkanProcess.run(["bench", "postbacks", "--count", "3", "--out", "p.jsonl"], in: folder)
            #expect(result.status != 0)
            #expect(result.stderr.contains("run skan from the SKANKit package's root folder, where Keys/test/ is"), "\(result.stderr)")
        }

        @Test("a report leaves no -wal or -shm file beside the database it read")
        func reportLeavesNoSideFiles() async throws {
            let folder = try TemporaryFolder.current.url
            let db = folder.appendingPathComponent("r.sqlite").path
            let input = folder.appendingPathComponent("in.jsonl")
            try "{}".write(to: input, atomically: true, encoding: .utf8)
            _ = try await SkanProcess.run(["ingest", "--db", db, input.path])
            #expect(FileManager.default.fileExists(atPath: db))
            #expect(!FileManager.default.fileExists(atPath: db + "-wal"), "a clean close leaves none")
            let report = try await SkanProcess.run(["report", "--db", db, "--by", "version"])
            #expect(report.status == 0, "\(report.stderr)")
            #expect(!FileManager.default.fileExists(atPath: db + "-wal") && !FileManager.default.fileExists(atPath: db + "-shm"))
        }
    }
}
