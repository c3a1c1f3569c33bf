import Foundation
import SKANTestSupport
import Testing

/// A database written by the previous release (0.9.0, commit 31801cd: no `framework` column, the dedup key without
/// the framework) must open, migrate and report the same numbers. `Golden/release-0.9.0/` holds such a file, made
/// by that release's `skan ingest`, and what that release's `report` and `export` printed for it.
extension CommandLineSuites {
    @Suite("Databases of the previous release")
    struct UpgradeCLITests {
        static let release = SkanProcess.packageRoot.appendingPathComponent("Tests/SkanCLITests/Golden/release-0.9.0")

        static func expected(_ name: String) throws -> String {
            try String(contentsOf: release.appendingPathComponent(name), encoding: .utf8)
        }

        /// The old release's report with the column this release added after `redownloads`: no re-engagements,
        /// since that release stored SKAdNetwork postbacks only.
        static func withReengagements(_ csv: String) -> String {
            let lines = csv.components(separatedBy: "\r\n")
            guard let header = lines.first?.components(separatedBy: ","),
                  let position = header.firstIndex(of: "redownloads") else { return csv }
            return lines.map { line in
                guard !line.isEmpty else { return line }
                var cells = line.components(separatedBy: ",")
                cells.insert(line == lines[0] ? "reengagements" : "0", at: position + 1)
                return cells.joined(separator: ",")
            }.joined(separator: "\r\n")
        }

        @Test("report gives the old release's numbers, export only adds the new columns, ingest dedups as before")
        func upgrade() async throws {
            let folder = try TemporaryFolder.current.url
            let database = folder.appendingPathComponent("skan.sqlite").path
            try FileManager.default.copyItem(atPath: Self.release.appendingPathComponent("skan.sqlite").path, toPath: database)

            // The first read migrates the file; the numbers are those the old release reported.
            let report = try await SkanProcess.run(["report", "--db", database, "--by", "ad-network,campaign,did-win,day",
                                                    "--schema", "Samples/schemas/skan-3.0-game.csv", "--format", "csv"])
            #expect(report.status == 0, "\(report.stderr)")
            #expect(report.stdout == (try Self.withReengagements(Self.expected("report.csv"))))

            // Every row kept with its id; the new column says which framework sent it.
            let export = try await SkanProcess.run(["export", "--db", database])
            #expect(export.status == 0, "\(export.stderr)")
            let old = try Self.expected("export.csv").components(separatedBy: "\r\n").filter { !$0.isEmpty }
            let new = export.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(old.count > 20)
            #expect(new.count == old.count)
            #expect(new.first == old.first.map { $0 + ",framework,conversion_type,marketplace_identifier,impression_type,client_address" })
            // The conversion type is SKAdNetwork's redownload flag in neutral words; the others are AAK's alone.
            let redownload = try #require(old.first?.split(separator: ",").firstIndex(of: "redownload"))
            for (before, after) in zip(old.dropFirst(), new.dropFirst()) {
                let type = switch before.split(separator: ",", omittingEmptySubsequences: false)[redownload] {
                case "1": "redownload"
                case "0": "download"
                default: ""
                }
                #expect(after == before + ",skadnetwork,\(type),,,")
            }

            // The postbacks already there are duplicates under the new key too.
            let ingest = try await SkanProcess.run(["ingest", "--db", database, "--trust-key",
                                                    "Keys/test/simulated-apple-p256-public-key.pem", "--trust-key",
                                                    "Keys/test/simulated-apple-p192-public-key.pem",
                                                    Self.release.appendingPathComponent("postbacks.jsonl").path])
            #expect(ingest.status == 0, "\(ingest.stderr)")
            #expect(ingest.stdout.contains(": duplicate \(old.count - 1)"), "\(ingest.stdout)")
        }
    }
}
