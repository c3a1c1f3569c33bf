import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// The command line against a real PostgreSQL server (`Scripts/postgres-test-server.sh`).
    @Suite("skan on PostgreSQL", .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"))
    struct PostgresCLITests {
        @Test("skan demo --db postgres://… names that database in its closing lines, not a skan.sqlite it never made")
        func demoNamesTheURL() async throws {
            let server = try #require(PostgresTestServer.shared)
            let url = try server.makeDatabase()
            let result = try await SkanProcess.run(["demo", "--devices", "60", "--seed", "3", "--db", url])
            #expect(result.status == 0, "\(result.stderr)")
            let closing = result.stdout.components(separatedBy: "left behind in").last ?? ""
            #expect(!closing.contains("skan.sqlite"), "\(closing)")
            #expect(closing.contains("--db postgres://"), "\(closing)")
        }
    
        @Test("two skan processes migrating one empty database at once both succeed, and each migration runs once")
        func racedMigrations() async throws {
            let server = try #require(PostgresTestServer.shared)
            let url = try server.makeDatabase()
            async let first = SkanProcess.run(["ingest", "--db", url, "-"], stdin: "")
            async let second = SkanProcess.run(["ingest", "--db", url, "-"], stdin: "")
            let results = try await [first, second]
            for result in results { #expect(result.status == 0, "\(result.stderr)") }
            let migrations = try server.psql(url, "SELECT id || ':' || count(*) FROM skan_migrations GROUP BY id ORDER BY id")
                .split(separator: "\n").map(String.init)
            #expect(migrations == ["0001-postbacks:1", "0002-rejected-postbacks:1", "0003-stat-counters:1", "0004-web-ads:1", "0005-rollups:1", "0006-campaign-days:1",
                                    "0007-relay-outbox:1", "0008-conflicts:1", "0009-campaigns:1", "0011-integrity:1", "0012-client-address:1"])
            let tables = try server.psql(url, "SELECT count(*) FROM pg_tables WHERE tablename IN ('postbacks', 'rejected_postbacks', 'stat_counters', 'web_ads')")
            #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines) == "4")
        }
    }
}
