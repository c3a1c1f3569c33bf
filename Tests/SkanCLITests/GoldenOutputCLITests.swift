import Foundation
import SKANTestSupport
import Testing

/// What `skan` prints for the samples, pinned byte for byte: `verify` in its three formats, `report` (with its SQL),
/// `export` and `demo`. The files in `Golden/` were written by the release before the attribution and store seams
/// went in (commit 31801cd), so a refactoring that changes any output fails here.
///
/// Only what legitimately varies between runs is masked, by one rule: in `demo`'s output the temporary folder,
/// the port and the seconds it took. `SKAN_UPDATE_GOLDEN=1 swift test` rewrites the files after a change that is
/// meant to alter them; read the diff before committing it.
extension CommandLineSuites {
    @Suite("Golden command output")
    struct GoldenOutputCLITests {
        static let golden = SkanProcess.packageRoot.appendingPathComponent("Tests/SkanCLITests/Golden")
        static let trust = ["--trust-key", "Keys/test/simulated-apple-p256-public-key.pem",
                            "--trust-key", "Keys/test/simulated-apple-p192-public-key.pem"]
        static let samples = ["Samples/postbacks/apple-examples.jsonl", "Samples/postbacks/skan-2.1-apple-example.json",
                              "Samples/postbacks/skan-2.2-apple-doc.json", "Samples/postbacks/skan-3.0-winning-apple-doc.json",
                              "Samples/postbacks/skan-4.0-web-coarse-apple-doc.json"]

        /// Compares `actual` with the golden file `name`, or rewrites the file when asked to.
        static func expectGolden(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let url = golden.appendingPathComponent(name)
            if ProcessInfo.processInfo.environment["SKAN_UPDATE_GOLDEN"] == "1" {
                try FileManager.default.createDirectory(at: golden, withIntermediateDirectories: true)
                try actual.write(to: url, atomically: true, encoding: .utf8)
                return
            }
            let expected = try String(contentsOf: url, encoding: .utf8)
            #expect(!expected.isEmpty, "\(name) is empty", sourceLocation: sourceLocation)
            if actual != expected {
                let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
                let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
                let first = zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    ?? min(actualLines.count, expectedLines.count)
                Issue.record("""
                    \(name) differs from its golden file at line \(first + 1):
                    expected: \(first < expectedLines.count ? String(expectedLines[first]) : "<end>")
                    actual:   \(first < actualLines.count ? String(actualLines[first]) : "<end>")
                    """, sourceLocation: sourceLocation)
            }
        }

        @Test("verify prints the golden text, JSON and CSV for the samples and a simulated campaign")
        func verify() async throws {
            let folder = try TemporaryFolder.current.url
            let simulated = folder.appendingPathComponent("race.jsonl").path
            let simulate = try await SkanProcess.run(["simulate", "--campaign", "Samples/campaigns/race-storekit-vs-view-through.json",
                                                      "--devices", "60", "--seed", "5", "--out", simulated])
            #expect(simulate.status == 0, "\(simulate.stderr)")
            for format in ["text", "json", "csv"] {
                let result = try await SkanProcess.run(["verify", "--format", format] + Self.trust + Self.samples + [simulated])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.utf8.count > 5_000)
                try Self.expectGolden(result.stdout.replacingOccurrences(of: simulated, with: "SIMULATED"), "verify.\(format)")
            }
        }

        @Test("ingest, report, report --print-sql and export print the golden output")
        func reportAndExport() async throws {
            let folder = try TemporaryFolder.current.url
            let simulated = folder.appendingPathComponent("sub.jsonl").path
            let database = folder.appendingPathComponent("skan.sqlite").path
            let simulate = try await SkanProcess.run(["simulate", "--campaign", "Samples/campaigns/skan-4.0-subscription.json",
                                                      "--devices", "300", "--seed", "3", "--out", simulated])
            #expect(simulate.status == 0, "\(simulate.stderr)")
            // A refused postback, so that the export of refusals has a row; in an envelope, so it has a fixed time.
            let refused = folder.appendingPathComponent("refused.jsonl").path
            try Data(#"{"send-at-ms": 1767225600000, "postback": {"version": "4.0", "ad-network-id": "x"}}"#.utf8 + [10])
                .write(to: URL(fileURLWithPath: refused))
            // Records of the simulator arrive at their send time, so every stored time is the same on every run.
            let ingest = try await SkanProcess.run(["ingest", "--db", database] + Self.trust + [simulated, refused])
            // One refusal: exit 1, by design.
            #expect(ingest.status == 1, "\(ingest.stderr)")
            try Self.expectGolden(ingest.stdout.replacingOccurrences(of: database, with: "DB"), "ingest.txt")
            #expect(ingest.stdout.contains("malformed 1"))

            let schema = ["--schema", "Samples/schemas/skan-4.0-subscription.csv"]
            let runs: [(String, [String])] = [
                ("report-network-window-tier.csv", ["--by", "ad-network,window,tier", "--format", "csv"] + schema),
                ("report-install-day.table", ["--by", "day", "--date", "install", "--format", "table"]),
                ("report-campaign-source.json", ["--by", "campaign,source,fidelity,did-win,redownload", "--format", "json"]),
                ("report-values.csv", ["--by", "version,conversion-value,coarse-value,app", "--from", "2025-01-01", "--format", "csv"]),
                ("report-total.table", []),
                ("report-print-sql.txt", ["--by", "ad-network,day", "--date", "install", "--from", "2025-01-01",
                                          "--to", "2030-12-31", "--print-sql"] + schema),
            ]
            for (name, arguments) in runs {
                let result = try await SkanProcess.run(["report", "--db", database] + arguments)
                #expect(result.status == 0, "\(name): \(result.stderr)")
                try Self.expectGolden(result.stdout, name)
            }
            let exports: [(String, [String])] = [
                ("export.csv", ["--format", "csv"]),
                ("export.jsonl", ["--format", "jsonl"]),
                ("export-rejected.csv", ["--rejected", "--format", "csv"]),
            ]
            for (name, arguments) in exports {
                let result = try await SkanProcess.run(["export", "--db", database] + arguments)
                #expect(result.status == 0, "\(name): \(result.stderr)")
                #expect(result.stdout.utf8.count > 100)
                try Self.expectGolden(result.stdout, name)
            }
        }

        @Test("demo prints the golden summary and table")
        func demo() async throws {
            let result = try await SkanProcess.run(["demo", "--devices", "200", "--seed", "2"])
            #expect(result.status == 0, "\(result.stderr)")
            let folder = try #require(result.lines.last { $0.hasPrefix("left behind in ") }?.dropFirst("left behind in ".count).dropLast())
            defer { try? FileManager.default.removeItem(atPath: String(folder)) }
            var masked = result.stdout.replacingOccurrences(of: String(folder), with: "FOLDER")
            masked = masked.replacingOccurrences(of: #"127\.0\.0\.1:[0-9]+"#, with: "127.0.0.1:PORT", options: .regularExpression)
            masked = masked.replacingOccurrences(of: #" in [0-9]+\.[0-9] s "#, with: " in S s ", options: .regularExpression)
            try Self.expectGolden(masked, "demo.txt")
        }
    }
}
