import Foundation
import SKANCore
import SKANReports
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// Campaign maps: the file's rules, the hierarchy of source identifiers, and reports in campaign names.
@Suite("Campaign names", .temporaryFolder)
struct CampaignMapTests {
    static let header = "ad_network_id,source_identifier,campaign_id,valid_from,valid_to,campaign,ad_set,creative,country\n"

    static func map(_ rows: String, digits: SourceIdentifierDigits = .trailing) throws -> CampaignMap {
        try CampaignMap(csv: header + rows, source: "names.csv", digits: digits)
    }

    @Test("a malformed row is refused naming its line, the field and what was expected",
          arguments: [
            ("n.skadnetwork,52x9,,,,Sale,,,\n", "names.csv:2: source_identifier must be 2 to 4 digits, got \"52x9\""),
            ("n.skadnetwork,12345,,,,Sale,,,\n", "names.csv:2: source_identifier must be 2 to 4 digits, got \"12345\""),
            ("n.skadnetwork,,101,,,Sale,,,\n", "names.csv:2: campaign_id must be an integer 1...100, got \"101\""),
            ("n.skadnetwork,39,12,,,Sale,,,\n", "names.csv:2: give a source_identifier or a campaign_id, not both"),
            ("n.skadnetwork,,,,,Sale,,,\n", "names.csv:2: give a source_identifier or a campaign_id"),
            (",39,,,,Sale,,,\n", "names.csv:2: ad_network_id is empty"),
            ("n.skadnetwork,39,,,,,,,\n", "names.csv:2: campaign is empty"),
            ("n.skadnetwork,39,,2026-02-30,,Sale,,,\n", "names.csv:2: valid_from must be a day YYYY-MM-DD, got \"2026-02-30\""),
            ("n.skadnetwork,39,,2026-03-02,2026-03-01,Sale,,,\n", "names.csv:2: valid_to 2026-03-01 is before valid_from 2026-03-02; expected a day on or after valid_from"),
          ])
    func malformed(row: String, message: String) {
        #expect(throws: CampaignMapError(.malformed, message)) { try Self.map(row) }
    }

    @Test("an unknown column is refused with the columns expected")
    func unknownColumn() {
        #expect(throws: CampaignMapError.self) {
            try CampaignMap(csv: "ad_network_id,source_identifier,campaign,budget\nn,39,Sale,10\n", source: "x.csv")
        }
    }

    @Test("two periods of one number that overlap are refused naming both lines; rows out of order are not")
    func overlaps() throws {
        #expect(throws: CampaignMapError(.overlap, "names.csv:3: valid_from,valid_to 2026-03-31 on of source_identifier 39 "
                                         + "of n.skadnetwork overlaps 2026-03-01 to 2026-03-31 at names.csv:2; expected "
                                         + "periods of one number that do not overlap")) {
            try Self.map("n.skadnetwork,39,,2026-03-01,2026-03-31,Spring,,,\nn.skadnetwork,39,,2026-03-31,,Summer,,,\n")
        }
        let map = try Self.map("n.skadnetwork,39,,2026-04-01,,Summer,,,\nn.skadnetwork,39,,,2026-03-31,Spring,,,\n"
                               + "other.skadnetwork,39,,,,Theirs,,,\n")
        #expect(map.lookup(network: "n.skadnetwork", number: .sourceIdentifier("39"), day: "2026-03-31").names?.campaign == "Spring")
        #expect(map.lookup(network: "n.skadnetwork", number: .sourceIdentifier("39"), day: "2026-04-01").names?.campaign == "Summer")
        #expect(map.lookup(network: "other.skadnetwork", number: .sourceIdentifier("39"), day: "2026-04-01").names?.campaign == "Theirs")
    }

    @Test("fewer digits are named through the longer identifiers that contain them, never past what they tell")
    func hierarchy() throws {
        let map = try Self.map("""
            n.skadnetwork,5239,,,,Spring,Lapsed,Video,US
            n.skadnetwork,6239,,,,Spring,Lapsed,Playable,US
            n.skadnetwork,7139,,,,Spring,New,Banner,DE
            n.skadnetwork,5240,,,,Summer,New,Video,
            n.skadnetwork,5241,,,,Autumn,,,
            n.skadnetwork,1141,,,,Winter,,,
            n.skadnetwork,,12,,,Old,,,

            """)
        func names(_ digits: String) -> CampaignMap.Lookup {
            map.lookup(network: "n.skadnetwork", number: .sourceIdentifier(digits), day: "2026-03-01")
        }
        #expect(names("5239") == .mapped(.init(campaign: "Spring", adSet: "Lapsed", creative: "Video", country: "US")))
        #expect(names("239") == .partial(.init(campaign: "Spring", adSet: "Lapsed", creative: nil, country: "US")))
        #expect(names("39") == .partial(.init(campaign: "Spring")))
        #expect(names("139") == .partial(.init(campaign: "Spring", adSet: "New", country: "DE")))
        // 41 ends two identifiers of different campaigns: the digits do not tell which.
        #expect(names("41") == .unmapped)
        #expect(names("99") == .unmapped)
        #expect(map.lookup(network: "n.skadnetwork", number: .campaignID(12), day: nil) == .mapped(.init(campaign: "Old")))
        // A campaign id is not a two-digit source identifier.
        #expect(map.lookup(network: "n.skadnetwork", number: .sourceIdentifier("12"), day: nil) == .unmapped)

        let leading = try Self.map("n.skadnetwork,5239,,,,Spring,Lapsed,Video,\n", digits: .leading)
        #expect(leading.lookup(network: "n.skadnetwork", number: .sourceIdentifier("52"), day: nil).names?.campaign == "Spring")
        #expect(leading.lookup(network: "n.skadnetwork", number: .sourceIdentifier("39"), day: nil) == .unmapped)
    }

    @Test("a report by campaign name over a simulated campaign equals the count made by hand from its postbacks")
    func reportByName() async throws {
        let (entries, _) = try GoldenReportTests.simulatedEntries("skan-4.0-subscription", devices: 300)
        let path = try TemporaryFolder.current.path("names-\(UUID().uuidString).sqlite")
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        let outcomes = try await store.write(entries)
        try await store.close()

        // By hand: the sample's four source identifiers and the digits each tier lets through.
        func campaign(_ network: String, _ digits: String) -> String {
            switch (network, digits) {
            case ("adnet1.skadnetwork", "5239"), ("adnet1.skadnetwork", "239"), ("adnet1.skadnetwork", "39"): "Spring sale"
            case ("adnet1.skadnetwork", "5240"), ("adnet1.skadnetwork", "240"), ("adnet1.skadnetwork", "40"): "Summer trial"
            case ("adnet1.skadnetwork", "1207"), ("adnet1.skadnetwork", "207"), ("adnet1.skadnetwork", "07"): "News readers"
            case ("rival22.skadnetwork", "3120"), ("rival22.skadnetwork", "120"), ("rival22.skadnetwork", "20"): "Rival brand"
            default: "(unmapped \(digits))"
            }
        }
        var expected: [String: Int] = [:]
        var adSets: [String: Int] = [:]
        for (entry, outcome) in zip(entries, outcomes) where outcome == .stored {
            guard case .accepted(let accepted) = entry else { continue }
            let fields = accepted.attribution.fields
            let digits = try #require(fields.sourceIdentifier)
            expected[campaign(fields.network, digits), default: 0] += 1
            if fields.network == "adnet1.skadnetwork" && ["5239", "239"].contains(digits) { adSets["Lapsed players", default: 0] += 1 }
        }
        #expect(expected.count == 4)

        let namesPath = GoldenReportTests.root.appendingPathComponent("Samples/campaigns/skan-4.0-subscription-names.csv").path
        let names = try CampaignMap(csv: String(contentsOfFile: namesPath, encoding: .utf8), source: namesPath)
        let reader = try SQLitePostbackReader(path: path)
        let report = try await ReportBuilder.run(try ReportRequest(fields: [.campaignName], campaigns: names), on: reader)
        let counted = Dictionary(uniqueKeysWithValues: report.rows.map { ($0.keys[0] ?? "", $0.postbacks) })
        #expect(counted == expected)
        #expect(report.rows.map { $0.keys[0] ?? "" } == counted.keys.sorted())

        // Ad sets from three digits or four, none from two; a filter on a name keeps only its rows.
        let bySet = try await ReportBuilder.run(
            try ReportRequest(fields: [.campaignName, .adSet], filters: [ReportFilter(.campaignName, equals: "Spring sale")],
                              campaigns: names), on: reader)
        #expect(bySet.rows.allSatisfy { $0.keys[0] == "Spring sale" })
        #expect(bySet.rows.first { $0.keys[1] == "Lapsed players" }?.postbacks == adSets["Lapsed players"])
        #expect(bySet.rows.reduce(0) { $0 + $1.postbacks } == expected["Spring sale"])
    }

    @Test("a name field without a campaign map is refused, saying what to give")
    func needsMap() {
        #expect(throws: ReportError.self) { try ReportRequest(fields: [.adSet]) }
    }
}
