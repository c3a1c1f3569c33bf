import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// `skan campaigns import` and `list` against PostgreSQL, the engine the docs' examples (SQLite) do not run: a
    /// refused file stores nothing, a report names campaigns from the stored map, and a second import replaces its
    /// network's rows alone.
    @Suite("skan campaigns on PostgreSQL", .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"))
    struct CampaignsCLITests {
        @Test("import, a refused import, list and a report by campaign name on a postgres:// database")
        func importOnPostgres() async throws {
            let server = try #require(PostgresTestServer.shared)
            let url = try server.makeDatabase()
            let folder = try TemporaryFolder.current.url
            let names = SkanProcess.packageRoot.appendingPathComponent("Samples/campaigns/skan-4.0-subscription-names.csv").path

            let imported = try await SkanProcess.run(["campaigns", "import", "--db", url, names])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("imported 6 rows"), "\(imported.stdout)")

            let overlap = folder.appendingPathComponent("overlap.csv")
            try "ad_network_id,source_identifier,campaign,valid_from,valid_to\nadnet1.skadnetwork,5239,A,2026-03-01,2026-03-31\nadnet1.skadnetwork,5239,B,2026-03-15,\n"
                .write(to: overlap, atomically: true, encoding: .utf8)
            let refused = try await SkanProcess.run(["campaigns", "import", "--db", url, overlap.path])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("overlap.csv:3: valid_from,valid_to 2026-03-15 on of source_identifier 5239"), "\(refused.stderr)")

            let rival = folder.appendingPathComponent("rival.csv")
            try "ad_network_id,source_identifier,campaign\nrival22.skadnetwork,3120,Renamed\n".write(to: rival, atomically: true, encoding: .utf8)
            let replaced = try await SkanProcess.run(["campaigns", "import", "--db", url, rival.path])
            #expect(replaced.stdout.contains("(replaced 1)"), "\(replaced.stdout)")

            let listed = try await SkanProcess.run(["campaigns", "list", "--db", url])
            #expect(listed.status == 0, "\(listed.stderr)")
            // CSV ends its lines with CRLF, one Character in Swift: split on newlines, not on "\n".
            let rows = listed.stdout.split(whereSeparator: \.isNewline)
            #expect(rows.count == 7, "a header, adnet1's five rows, rival22's one: \(listed.stdout)")
            #expect(rows.last == "rival22.skadnetwork,3120,,,,Renamed,,,")
            let imports = try await SkanProcess.run(["campaigns", "list", "--db", url, "--imports"])
            #expect(imports.stdout.split(whereSeparator: \.isNewline).count == 3, "two imports recorded, the refused one not: \(imports.stdout)")

            // No postbacks yet: the report runs on the stored map and counts nothing, with no --campaigns.
            let report = try await SkanProcess.run(["report", "--db", url, "--by", "campaign-name", "--format", "csv"])
            #expect(report.status == 0, "\(report.stderr)")
            #expect(report.stdout.hasPrefix("campaign_name,postbacks"), "\(report.stdout)")
        }
    }
}
