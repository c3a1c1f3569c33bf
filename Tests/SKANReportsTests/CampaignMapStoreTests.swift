import Foundation
import SKANCore
import SKANReports
import SKANStore
import SKANStoreSQLite
import SKANStorePostgres
import SKANTestSupport
import Testing

/// The campaign map in the store (`skan campaigns import`) on every engine through the engine protocol: an import
/// replaces the networks it names, entries come back whole and in one order, and a report by campaign name from the
/// stored map equals the count made by hand. PostgreSQL runs when the test server is up.
@Suite("Campaign map in the store", .temporaryFolder)
struct CampaignMapStoreTests {
    enum Engine: String, CaseIterable, CustomTestStringConvertible {
        case sqlite = "SQLite file"
        case memory = "memory engine"
        case postgres = "PostgreSQL"

        var testDescription: String { rawValue }

        /// The engine and a new, empty location of it.
        func make() throws -> (engine: any StorageEngine, location: String) {
            switch self {
            case .sqlite:
                let path = try TemporaryFolder.current.path("map-\(UUID().uuidString).sqlite")
                return (SQLiteEngine(), path)
            case .memory:
                return (MemoryEngine(), "memory:map-\(UUID().uuidString)")
            case .postgres:
                let server = try #require(PostgresTestServer.shared)
                return (PostgresEngine(), try server.makeDatabase())
            }
        }
    }

    static let header = CampaignMap.columns.joined(separator: ",") + "\n"
    static let at = Date(timeIntervalSince1970: 1_780_000_000)

    static func map(_ rows: String, source: String = "names.csv") throws -> CampaignMap {
        try CampaignMap(csv: header + rows, source: source)
    }

    // MARK: - Imports

    @Test("an import replaces the stored rows of the networks it names, keeps the others, and records itself",
          arguments: [Engine.sqlite, .memory])
    func replaces(_ engine: Engine) async throws { try await Self.replaces(engine) }

    @Test("an import replaces the stored rows of the networks it names (PostgreSQL)",
          .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"))
    func replacesOnPostgres() async throws { try await Self.replaces(.postgres) }

    static func replaces(_ kind: Engine) async throws {
        let (engine, location) = try kind.make()
        let store = try engine.openCampaignMapStore(location)
        try await StoreHost.running([store]) {
            try await store.migrate()
            #expect(try await store.entries().isEmpty)

            let first = try map("""
                a.skadnetwork,5239,,2026-03-01,2026-05-31,Spring sale,Lapsed players,Video 15s,US
                a.skadnetwork,5239,,2026-06-01,,Summer sale,,,
                a.skadnetwork,,12,,,Old install campaign,,,
                b.skadnetwork,39,,,,Theirs,,,

                """, source: "first.csv")
            let outcome = try await store.replace(CampaignMapImport(first, source: "first.csv", importedAt: at))
            #expect(outcome == CampaignMapImport.Outcome(added: 4, removed: 0))
            // Every field back, in one order on every engine: by network, campaign ids first, then period.
            #expect(try await store.entries() == CampaignMapTable.sorted(first.entries))
            #expect(try await store.entries().map(\.origin) == ["first.csv:4", "first.csv:2", "first.csv:3", "first.csv:5"])

            let second = try map("a.skadnetwork,5240,,,,Autumn,New players,,DE\n", source: "second.csv")
            let replaced = try await store.replace(CampaignMapImport(second, source: "second.csv", importedAt: at + 60))
            #expect(replaced == CampaignMapImport.Outcome(added: 1, removed: 3))
            let names = try await store.entries().map { "\($0.network) \($0.number.value) \($0.names.campaign)" }
            #expect(names == ["a.skadnetwork 5240 Autumn", "b.skadnetwork 39 Theirs"])
            let imports = try await store.imports()
            #expect(imports.map(\.source) == ["first.csv", "second.csv"])
            #expect(imports.map(\.networks) == ["a.skadnetwork,b.skadnetwork", "a.skadnetwork"])
            #expect(imports.map(\.rows) == [4, 1])
            #expect(imports.first?.importedAt == Timestamp.iso8601(at))
            await store.close()
        }
    }

    @Test("reading the map from a collector's SQLite file leaves no -wal or -shm beside it")
    func noSideFiles() async throws {
        let (_, path) = try Engine.sqlite.make()
        let collector = try await SQLitePostbackStore.open(path: path, durability: .normal)
        try await collector.close()
        let writer = SQLiteEngine()
        let store = try writer.openCampaignMapStore(path)
        try await store.migrate()
        try await store.replace(CampaignMapImport(try Self.map("a.skadnetwork,39,,,,Spring,,,\n"), source: "names.csv", importedAt: Self.at))
        await store.close()
        for read in 0..<2 {
            let reader = try writer.openCampaignMapStore(path)
            #expect(try await (read == 0 ? reader.entries().count : reader.imports().count) == 1)
            await reader.close()
            for suffix in ["-wal", "-shm"] {
                #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(suffix) left after a read")
            }
        }
    }

    // MARK: - Refused rows

    @Test("overlapping, out-of-order and malformed rows are refused naming the line, the field, the value and what was expected",
          arguments: [
            ("a.skadnetwork,39,,2026-03-01,2026-03-31,Spring,,,\na.skadnetwork,39,,2026-03-15,,Easter,,,\n",
             CampaignMapError(.overlap, "names.csv:3: valid_from,valid_to 2026-03-15 on of source_identifier 39 of a.skadnetwork "
                              + "overlaps 2026-03-01 to 2026-03-31 at names.csv:2; expected periods of one number that do not overlap")),
            ("a.skadnetwork,,7,,,Old,,,\na.skadnetwork,,7,,2026-01-01,Older,,,\n",
             CampaignMapError(.overlap, "names.csv:3: valid_from,valid_to to 2026-01-01 of campaign_id 7 of a.skadnetwork "
                              + "overlaps (all days) at names.csv:2; expected periods of one number that do not overlap")),
            ("a.skadnetwork,39,,2026-04-01,2026-03-01,Spring,,,\n",
             CampaignMapError(.malformed, "names.csv:2: valid_to 2026-03-01 is before valid_from 2026-04-01; expected a day on or after valid_from")),
            ("a.skadnetwork,5x,,,,Spring,,,\n",
             CampaignMapError(.malformed, "names.csv:2: source_identifier must be 2 to 4 digits, got \"5x\"")),
            ("a.skadnetwork,39,,2026-13-01,,Spring,,,\n",
             CampaignMapError(.malformed, "names.csv:2: valid_from must be a day YYYY-MM-DD, got \"2026-13-01\"")),
          ])
    func refused(rows: String, error: CampaignMapError) {
        #expect(throws: error) { try Self.map(rows) }
    }

    @Test("rows of one number may come in any order when their periods do not overlap")
    func anyRowOrder() throws {
        let map = try Self.map("a.skadnetwork,39,,2026-04-01,,Summer,,,\na.skadnetwork,39,,,2026-03-31,Spring,,,\n")
        #expect(map.lookup(network: "a.skadnetwork", number: .sourceIdentifier("39"), day: "2026-03-31").names?.campaign == "Spring")
        #expect(map.lookup(network: "a.skadnetwork", number: .sourceIdentifier("39"), day: "2026-04-01").names?.campaign == "Summer")
    }

    // MARK: - Reports from the stored map

    @Test("a report by campaign name from the stored map equals the count made by hand",
          arguments: [Engine.sqlite, .memory])
    func reportByStoredName(_ engine: Engine) async throws { try await Self.reportByStoredName(engine) }

    @Test("a report by campaign name from the stored map equals the count made by hand (PostgreSQL)",
          .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"))
    func reportByStoredNameOnPostgres() async throws { try await Self.reportByStoredName(.postgres) }

    static func reportByStoredName(_ kind: Engine) async throws {
        let (engine, location) = try kind.make()
        let (entries, _) = try GoldenReportTests.simulatedEntries("skan-4.0-subscription", devices: 200)
        let postbacks = try engine.openStore(location, options: StoreOptions(durability: .normal))
        let outcomes = try await StoreHost.running([postbacks]) {
            try await postbacks.migrate()
            let outcomes = try await postbacks.write(entries)
            try await postbacks.close()
            return outcomes
        }

        // A map naming only adnet1's Spring sale at four digits, and rival22's number for one dated period that
        // covers none of the simulated days: everything else must show as unmapped, never dropped.
        let names = try map("""
            adnet1.skadnetwork,5239,,,,Spring sale,Lapsed players,Video 15s,
            rival22.skadnetwork,3120,,2020-01-01,2020-12-31,Rival brand,,,

            """)
        let store = try engine.openCampaignMapStore(location)
        let stored = try await StoreHost.running([store]) {
            try await store.migrate()
            try await store.replace(CampaignMapImport(names, source: "names.csv", importedAt: at))
            let stored = try CampaignMap(entries: try await store.entries())
            await store.close()
            return stored
        }

        // By hand: 5239 and the digits of it a lower tier keeps (239, 39) are Spring sale on adnet1; every other
        // number is unmapped under its own digits.
        var expected: [String: Int] = [:]
        for (entry, outcome) in zip(entries, outcomes) where outcome == .stored {
            guard case .accepted(let accepted) = entry else { continue }
            let fields = accepted.attribution.fields
            let digits = try #require(fields.sourceIdentifier)
            let spring = fields.network == "adnet1.skadnetwork" && ["5239", "239", "39"].contains(digits)
            expected[spring ? "Spring sale" : "(unmapped \(digits))", default: 0] += 1
        }
        #expect(expected["Spring sale", default: 0] > 0)
        #expect(expected.keys.contains("(unmapped 3120)"))

        let reader = try await engine.openReader(location)
        let report = try await StoreHost.running([reader]) {
            let report = try await ReportBuilder.run(try ReportRequest(fields: [.campaignName], campaigns: stored), on: reader)
            await reader.close()
            return report
        }
        let counted = Dictionary(uniqueKeysWithValues: report.rows.map { ($0.keys[0] ?? "", $0.postbacks) })
        #expect(counted == expected)
        #expect(report.rows.reduce(0) { $0 + $1.postbacks } == outcomes.filter { $0 == .stored }.count, "no postback dropped")
    }
}
