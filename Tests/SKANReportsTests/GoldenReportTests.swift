import Foundation
import SKANCore
import SKANReports
import SKANSimulator
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// Simulate a sample campaign with a fixed seed, store what the collector would store, report, and compare the CSV
/// byte for byte with the file in `Golden/`. `SKAN_UPDATE_GOLDEN=1 swift test` rewrites the files after a change
/// that is meant to alter them (then read the diff before committing it).
@Suite("Golden reports", .temporaryFolder, .serialized)
struct GoldenReportTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Case: Sendable, CustomTestStringConvertible {
        let campaign: String
        let fields: String
        let day: DayBasis
        var testDescription: String { "\(campaign) by \(fields) (\(day.rawValue))" }
        var golden: String { "\(campaign)--\(fields.replacingOccurrences(of: ",", with: "-"))--\(day.rawValue).csv" }
    }

    static let cases = [
        Case(campaign: "skan-4.0-subscription", fields: "ad-network,window,tier", day: .arrival),
        Case(campaign: "skan-4.0-subscription", fields: "day", day: .install),
        Case(campaign: "skan-3.0-game", fields: "ad-network,campaign,did-win", day: .arrival),
        Case(campaign: "race-storekit-vs-view-through", fields: "ad-network,fidelity,did-win", day: .arrival),
    ]

    @Test("simulate → store → report gives the golden CSV", arguments: cases)
    func golden(_ testCase: Case) async throws {
        let (database, summary) = try await Self.simulatedDatabase(testCase.campaign, devices: 400)
        let schemaPath = Self.root.appendingPathComponent("Samples/schemas/\(testCase.campaign).csv").path
        let schema = try ConversionSchema(csv: String(contentsOfFile: schemaPath, encoding: .utf8), source: schemaPath)
        let request = try ReportRequest(fields: ReportField.list(testCase.fields), day: testCase.day, schema: schema)
        let report = try await ReportBuilder.run(request, on: SQLitePostbackReader(path: database))

        // Not an echo of the code: the totals must agree with what the simulator says it sent.
        #expect(report.rows.map(\.postbacks).reduce(0, +) == summary.adNetworkPostbacks)
        #expect(report.rows.map(\.nonWinning).reduce(0, +) == summary.nonWinning)

        let csv = try Self.csv(report)
        let golden = Self.root.appendingPathComponent("Tests/SKANReportsTests/Golden/\(testCase.golden)")
        if ProcessInfo.processInfo.environment["SKAN_UPDATE_GOLDEN"] == "1" {
            try Data(csv.utf8).write(to: golden)
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        #expect(csv == expected, "differs from \(golden.lastPathComponent)")
    }

    @Test("a report over an empty database is one row of zeros, or no rows when grouped")
    func emptyDatabase() async throws {
        let path = try TemporaryFolder.current.path("empty-\(UUID().uuidString).sqlite")
        let store = try await SQLitePostbackStore.open(path: path)
        try await store.close()
        let database = try SQLitePostbackReader(path: path)
        let total = try await ReportBuilder.run(ReportRequest(fields: []), on: database)
        #expect(total.rows.count == 1)
        #expect(total.cells(total.rows[0]) == ["0", "0", "0", "0", "0", "0", "0.0000"])
        let grouped = try await ReportBuilder.run(ReportRequest(fields: [.adNetwork, .day]), on: database)
        #expect(grouped.rows.isEmpty)
        #expect(grouped.header.prefix(2) == ["ad_network_id", "day"])
    }

    /// Runs the campaign and writes every ad network postback into a new SQLite file, received at its send time.
    static func simulatedDatabase(_ campaign: String, devices: Int) async throws -> (String, (adNetworkPostbacks: Int, nonWinning: Int)) {
        let (entries, nonWinning) = try simulatedEntries(campaign, devices: devices)
        let path = try TemporaryFolder.current.path("golden-\(UUID().uuidString).sqlite")
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        let outcomes = try await store.write(entries)
        #expect(outcomes.count == entries.count)
        try await store.close()
        return (path, (entries.count, nonWinning))
    }

    /// Every ad network postback of the campaign, verified, received at its send time, and how many did not win.
    static func simulatedEntries(_ campaign: String, devices: Int) throws -> (entries: [StoreEntry], nonWinning: Int) {
        let setup = try CampaignFile.load(path: root.appendingPathComponent("Samples/campaigns/\(campaign).json").path)
        var records: [SimulatedRecord] = []
        _ = try Simulation(setup: setup, seed: 1, devices: devices).run { records.append($0) }
        let verifier = AttributionVerifier(keyRing: KeyRing(setup.applePublicKeys.map { TrustedKey(name: "simulated-\($0.curve)", key: $0) }))
        var entries: [StoreEntry] = []
        var nonWinning = 0
        for record in records where record.recipient == .adNetwork {
            guard case .valid(let verified) = verifier.verify(record.postback) else {
                Issue.record("a simulated postback did not verify")
                continue
            }
            if verified.fields.didWin == false { nonWinning += 1 }
            let receivedAt = Date(timeIntervalSince1970: Double(record.sendAt) / 1000)
            entries.append(.accepted(AcceptedPostback(attribution: verified, rawBody: record.postback, receivedAt: receivedAt, endpoint: "/postbacks")))
        }
        return (entries, nonWinning)
    }

    static func csv(_ report: Report) throws -> String {
        let path = try TemporaryFolder.current.path("report-\(UUID().uuidString).csv")
        let stream = try BufferedOutput(path: path)
        try TableWriter(format: .csv, stream: stream).write(header: report.header, rows: report.rows.map(report.cells))
        try stream.commit()
        return try String(contentsOfFile: path, encoding: .utf8)
    }
}
