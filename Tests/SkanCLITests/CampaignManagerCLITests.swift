import Foundation
import SKANTestSupport
import Testing

// Runs the skan binary: one test at a time with the other process suites (SkanProcess.swift says why).
extension CommandLineSuites {
    /// A campaign manager's first hour (issue 37): the demo lands on its simulated days and names the dashboard, and a
    /// schema that cannot be used says why.
    @Suite("A campaign manager's first hour")
    struct CampaignManagerCLITests {
        @Test("skan demo stores each postback on the day its device sent it and prints the dashboard command with its schema")
        func demoDays() async throws {
            let folder = try TemporaryFolder.current.url
            let db = folder.appendingPathComponent("demo.sqlite").path
            let demo = try await SkanProcess.offThread {
                try SkanProcess.runBlocking(["demo", "--devices", "300", "--db", db], environment: ["TMPDIR": folder.path]) { _ in }
            }
            #expect(demo.status == 0, "\(demo.stderr)")
            #expect(demo.stdout.contains("\nsee it in a browser: skan dashboard --db \(db) --schema Samples/schemas/skan-4.0-subscription.csv\n"),
                    "\(demo.stdout.suffix(600))")
            let days = try await SkanProcess.run(["report", "--db", db, "--by", "day", "--format", "csv"])
            let rows = days.stdout.split(separator: "\r\n").dropFirst()
            // 21 days of flight, then windows up to day 35 and the device's send delays.
            #expect(rows.count > 20, "\(rows.count) days: \(days.stdout.prefix(300))")
            #expect(rows.first?.hasPrefix("2026-03-0") == true, "the campaign's own start, not today: \(rows.first ?? "")")
        }

        @Test("a --schema that cannot be used says why, in one line", arguments: [
            ("missing.csv", "does not exist"), (".", "is a folder"),
        ])
        func schemaRefusals(path: String, why: String) async throws {
            for command in [["report", "--db", "nothing.sqlite"], ["dashboard", "--db", "nothing.sqlite", "--port", "0", "--log-level", "warning"]] {
                let result = try await SkanProcess.run(command + ["--schema", path])
                #expect(result.status != 0)
                #expect(result.stderr == "skan: --schema: \(path) \(why); expected a conversion value schema CSV with the header "
                        + "conversion_value,coarse_value,event_name,event_count,revenue_low,revenue_high\n", "\(command): \(result.stderr)")
            }
        }
    }
}
