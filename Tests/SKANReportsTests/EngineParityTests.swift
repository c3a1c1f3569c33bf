import Foundation
import SKANCore
import SKANReports
import SKANStore
import SKANStoreSQLite
import SKANStorePostgres
import SKANTestSupport
import Testing

/// The same postbacks stored on SQLite and on PostgreSQL give byte-identical reports and exports: one
/// description of the report, two dialects.
@Suite("Reports and exports on both engines", .temporaryFolder,
       .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"))
struct EngineParityTests {
    static let requests: [(fields: String, day: DayBasis, schema: String?)] = {
        var requests: [(fields: String, day: DayBasis, schema: String?)] = ReportField.allCases.map { ($0.rawValue, .arrival, nil) }
        requests += [
            ("", .arrival, nil),
            ("ad-network,campaign,day", .arrival, nil),
            ("day", .install, nil),
            ("ad-network,window,tier", .arrival, "skan-4.0-subscription"),
            ("source,country,conversion-type", .install, "skan-4.0-subscription"),
        ]
        return requests
    }()

    @Test("every report field, both day bases and a schema give the same CSV, and the exports the same bytes")
    func sameOutput() async throws {
        let server = try #require(PostgresTestServer.shared)
        var (entries, _) = try GoldenReportTests.simulatedEntries("skan-4.0-subscription", devices: 300)
        entries += try GoldenReportTests.simulatedEntries("skan-3.0-game", devices: 100).entries
        let verifier = AttributionVerifier()
        for body in ["{}", "not json", #"{"version":"4.0","ad-network-id":"a,b\n"}"#] {
            entries.append(.rejected(RejectedPostback(verdict: verifier.verify(Array(body.utf8)), rawBody: Array(body.utf8),
                                                      receivedAt: Date(timeIntervalSince1970: 1_770_000_000), endpoint: "/postbacks")))
        }
        let path = try TemporaryFolder.current.path("parity-\(UUID().uuidString).sqlite")
        let sqlite = try await SQLitePostbackStore.open(path: path, durability: .normal)
        let sqliteOutcomes = try await sqlite.write(entries)
        try await sqlite.close()
        let configuration = try PostgresStoreConfiguration(url: try server.makeDatabase())
        let postgres = try await PostgresPostbackStore.open(configuration)
        let postgresOutcomes = try await StoreHost.running([postgres]) {
            let outcomes = try await postgres.write(entries)
            try await postgres.close()
            return outcomes
        }
        #expect(postgresOutcomes == sqliteOutcomes)
        #expect(sqliteOutcomes.filter { $0 == .stored }.count > 200)

        let readers: [any PostbackReader] = [try SQLitePostbackReader(path: path), try await PostgresPostbackReader.open(configuration)]
        try await StoreHost.running(readers) {
            let namesPath = GoldenReportTests.root.appendingPathComponent("Samples/campaigns/skan-4.0-subscription-names.csv").path
            let names = try CampaignMap(csv: String(contentsOfFile: namesPath, encoding: .utf8), source: namesPath)
            for request in Self.requests {
                var schema: ConversionSchema?
                if let name = request.schema {
                    let schemaPath = GoldenReportTests.root.appendingPathComponent("Samples/schemas/\(name).csv").path
                    schema = try ConversionSchema(csv: String(contentsOfFile: schemaPath, encoding: .utf8), source: schemaPath)
                }
                let fields = request.fields.isEmpty ? [] : try ReportField.list(request.fields)
                let built = try ReportRequest(fields: fields, day: request.day, schema: schema, campaigns: names)
                var outputs: [String] = []
                for reader in readers { outputs.append(try GoldenReportTests.csv(try await ReportBuilder.run(built, on: reader))) }
                #expect(outputs[0] == outputs[1], "report by \(request.fields) (\(request.day.rawValue)) differs")
                #expect(outputs[0].split(whereSeparator: \.isNewline).count >= 2, "a header and at least one row")
            }
            // Filters are compared as text on both engines: numbers, booleans, absent values, two at once.
            let filtered: [(fields: String, filters: [String])] = [
                ("day", ["window=0"]), ("ad-network", ["did-win=false", "framework=skadnetwork"]), ("", ["coarse-value="]),
                ("campaign", ["tier=4", "interaction=click"]), ("window", ["conversion-value="]),
            ]
            for request in filtered {
                let fields = request.fields.isEmpty ? [] : try ReportField.list(request.fields)
                let built = try ReportRequest(fields: fields, filters: try request.filters.map { try ReportFilter(parsing: $0) })
                var outputs: [String] = []
                for reader in readers { outputs.append(try GoldenReportTests.csv(try await ReportBuilder.run(built, on: reader))) }
                #expect(outputs[0] == outputs[1], "report by \(request.fields) where \(request.filters) differs")
                #expect(outputs[0].split(whereSeparator: \.isNewline).count >= 2, "\(request.filters) keeps some postbacks")
            }
            for (rejected, format) in [(false, Exporter.Format.csv), (false, .jsonl), (true, .csv)] {
                var outputs: [String] = []
                for reader in readers {
                    let out = try TemporaryFolder.current.path("parity-\(UUID().uuidString)")
                    let stream = try BufferedOutput(path: out)
                    try await Exporter.export(from: reader, rejected: rejected, format: format, to: stream)
                    try stream.commit()
                    outputs.append(try String(contentsOfFile: out, encoding: .utf8))
                }
                #expect(outputs[0] == outputs[1], "export (rejected: \(rejected), \(format.rawValue)) differs")
                #expect(outputs[0].count > 100)
            }
            for reader in readers { await reader.close() }
        }
    }
}
