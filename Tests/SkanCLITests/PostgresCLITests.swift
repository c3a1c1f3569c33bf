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
    }
}
