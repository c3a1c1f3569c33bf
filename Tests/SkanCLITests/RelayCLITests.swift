import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// `skan relay replay`, `status` and `retry` on a SQLite file and on a PostgreSQL database alike: the engine is
    /// chosen by `--db`, nowhere else.
    @Suite("skan relay")
    struct RelayCLITests {
        /// The databases under test: a SQLite file in `folder`, and a new PostgreSQL database when the test
        /// server is up.
        static func databases(in folder: URL) throws -> [String] {
            [folder.appendingPathComponent("skan.sqlite").path] + (try PostgresTestServer.shared.map { [try $0.makeDatabase()] } ?? [])
        }

        @Test("replay queues the stored postbacks a destination takes; status shows them; bad days and names are refused")
        func replayAndStatus() async throws {
            let folder = try TemporaryFolder.current.url
            let relay = folder.appendingPathComponent("relay.json").path
            try #"{"destinations": [{"name": "partner", "url": "http://127.0.0.1:9/in", "copies": ["winning"]}]}"#
                .write(toFile: relay, atomically: true, encoding: .utf8)
            let samples = SkanProcess.packageRoot.appendingPathComponent("Samples/postbacks/apple-examples.jsonl").path
            let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
            for db in try Self.databases(in: folder) {
                let ingest = try await SkanProcess.run(["ingest", "--db", db, samples])
                #expect(ingest.status == 0, "\(ingest.stderr)")
                // Six of Apple's examples are accepted; four of them are winning copies.
                let replay = try await SkanProcess.run(["relay", "replay", "--db", db, "--relay", relay,
                                                        "--destination", "partner", "--since", today])
                #expect(replay.status == 0, "\(replay.stderr)")
                #expect(replay.stdout == "4 postbacks queued for partner\n")
                let status = try await SkanProcess.run(["relay", "status", "--db", db])
                #expect(status.status == 0, "\(status.stderr)")
                #expect(status.lines.count == 2)
                #expect(status.lines.last?.hasPrefix("partner      4       0     \(today)T") == true, "\(status.stdout)")
                let none = try await SkanProcess.run(["relay", "replay", "--db", db, "--relay", relay,
                                                     "--destination", "partner", "--since", "2020-01-01", "--until", "2020-12-31"])
                #expect(none.stdout == "0 postbacks queued for partner\n")
                let unknown = try await SkanProcess.run(["relay", "replay", "--db", db, "--relay", relay,
                                                        "--destination", "nobody", "--since", today])
                #expect(unknown.status == 2)
                #expect(unknown.stderr.contains("--destination nobody: not in \(relay) (it names partner)"))
                let badDay = try await SkanProcess.run(["relay", "replay", "--db", db, "--relay", relay,
                                                       "--destination", "partner", "--since", "2026-1-1"])
                #expect(badDay.status == 2)
                #expect(badDay.stderr.contains(#"--since must be a day YYYY-MM-DD (UTC), got "2026-1-1""#))
                let retry = try await SkanProcess.run(["relay", "retry", "--dead", "--db", db])
                #expect(retry.stdout == "0 dead letters due again\n", "\(retry.stderr)")
            }
        }

        @Test("skan serve refuses a bad relay file at start, naming the destination and the field, and makes no database")
        func badConfiguration() async throws {
            let folder = try TemporaryFolder.current.url
            let relay = folder.appendingPathComponent("relay.json").path
            try #"{"destinations": [{"name": "partner", "url": "http://127.0.0.1:9/in", "copies": ["loser"]}]}"#
                .write(toFile: relay, atomically: true, encoding: .utf8)
            let db = folder.appendingPathComponent("skan.sqlite").path
            let process = Process()
            process.executableURL = SkanProcess.binary
            process.arguments = ["serve", "--db", db, "--port", "0", "--admin-port", "0", "--relay", relay]
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            // A collector that started anyway would serve until stopped: give it 30 s, then stop it and fail.
            let end = Date().addingTimeInterval(30)
            while process.isRunning && Date() < end { try await Task.sleep(for: .milliseconds(50)) }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 2, "\(stderr)")
            #expect(stderr.contains(#"destination 'partner': copies: expected one of "winning", "non-winning", "developer", got "loser""#),
                    "\(stderr)")
            #expect(!FileManager.default.fileExists(atPath: db), "a refused start left \(db) behind")
        }
    }
}
