import SKANReports
import SKANStore
import Testing
@testable import SKANDashboard

/// The dashboard in a campaign manager's words (issue 37): campaigns as the source identifier's hierarchy, tiers
/// 0–3, numbers in number order, a sentence where there is nothing to show, "—" for a rate over nothing.
@Suite("Dashboard: a campaign manager's words")
struct CampaignManagerDashboardTests {
    @Test("5239, 239 and 39 are one campaign; a suffix several campaigns end in stands alone; numbers sort as numbers")
    func hierarchy() {
        let demo = CampaignHierarchy(ids: ["5239", "239", "39", "5240", "240", "40", "1207", "207", "07", "3120", "120", "20"])
        #expect(demo.campaigns.map(\.id) == ["1207", "3120", "5239", "5240"])
        #expect(demo.campaign("5239")?.members == ["5239", "239", "39"])
        #expect(demo.campaignID(of: "07") == "1207" && demo.campaignID(of: "120") == "3120")
        #expect(demo.campaign("239") == nil, "a member is not a campaign of its own")

        let shared = CampaignHierarchy(ids: ["5239", "6139", "39", "7", "100"])
        #expect(shared.campaigns.map(\.id) == ["7", "39", "100", "5239", "6139"])
        #expect(shared.campaign("39")?.sharedBy == 2)
        #expect(shared.campaign("39")?.label == "39 (last 2 digits of 2 campaigns)")
        #expect(shared.campaign("5239")?.members == ["5239"])

        #expect(["120", "20", "239", "3120", "39", "web"].sorted(by: CampaignHierarchy.numericOrder) == ["20", "39", "120", "239", "3120", "web"])
    }

    @Test("tiers 0–3 as the glossary names them, from what a stored postback shows", arguments: [
        ("0", "true", "12", nil, "4", "tier 2 or 3"),
        ("0", "true", nil, nil, "3", "tier 2 or 3"),
        ("0", "true", "12", nil, "2", "tier 2 or 3"),
        ("0", "true", nil, "low", "2", "tier 1"),
        ("0", "true", nil, nil, "2", "tier 0"),
        ("1", "true", nil, "high", "2", "tier 1, 2 or 3"),
        ("0", "false", nil, nil, "2", "non-winning"),
        (nil, nil, "5", nil, nil, "before 4.0"),
    ] as [(String?, String?, String?, String?, String?, String)])
    func tiers(window: String?, didWin: String?, fine: String?, coarse: String?, digits: String?, name: String) {
        #expect(PageContent.tier(window: window, didWin: didWin, fine: fine, coarse: coarse, digits: digits) == name)
    }

    /// A store whose postbacks carry source identifier 5239 at three tiers: campaign filter X counts X's digits as
    /// postbacks (4, 3, 2), on one day from one network; unfiltered, all nine.
    struct TieredCampaign: PostbackReader {
        func aggregate(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) async throws {
            let ids = ["5239", "239", "39"]
            let campaign = query.filters.first { $0.dimension == .campaign }.map { $0.value ?? "" }
            for id in ids where campaign == nil || campaign == id {
                let keys: [String?] = query.dimensions.map { dimension in
                    switch dimension {
                    case .day: "2026-03-02"
                    case .campaign: id
                    case .network: "adnet1.skadnetwork"
                    default: nil
                    }
                }
                try each(AggregateRow(keys: keys, conversionValue: nil, coarseValue: nil, postbacks: id.count,
                                      installs: 1, redownloads: 0, reengagements: 0, nonWinning: 0, nullValues: 0))
            }
        }
        func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) { ("", []) }
        func export(_ table: ExportTable, header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) async throws {}
        func stats() async throws -> StoreStats {
            StoreStats(postbacks: 9, postbacksByKey: [PostbackCounterKey(framework: .skadnetwork, version: "4.0"): 9], rejected: 0, rejectedByStatus: [:], rejectedDropped: 0)
        }
        func latestRefusals(limit: Int) async throws -> [RefusalSummary] { [] }
    }

    func page(_ page: DashboardPage, _ query: [String: String], reader: any PostbackReader = TieredCampaign()) async throws -> PageContent {
        let known = try await KnownValues.read(from: reader)
        return try await PageContent.build(page, view: try DashboardView(query: query), reader: reader, schema: nil,
                                           known: known, latestRefusals: 20, hasCharts: true)
    }

    @Test("a campaign filter counts the campaign at every tier, and the picker lists it once")
    func campaignFilter() async throws {
        let content = try await page(.overview, ["campaign": "5239"])
        #expect(content.tiles.first { $0.id == "postbacks" }?.value == "9")
        #expect(content.campaigns.map(\.value) == ["", "5239"])
        #expect(content.campaigns.first { $0.selected }?.label == "5239 (with 239, 39)")
        #expect(content.networks.map(\.value) == ["", "adnet1.skadnetwork"])
        let byCampaign = try await page(.overview, ["stack": "campaign"])
        let table = try #require(byCampaign.panels.first { $0.id == "campaigns" }?.table)
        #expect(table.rows.count == 1 && table.rows[0].cells[0].text == "5239" && table.rows[0].cells[2].text == "9")
        #expect(table.rows[0].cells[1].detail == "5239 (4 digits): 4 · 239 (3 digits): 3 · 39 (2 digits): 2")
        #expect(byCampaign.panels[0].command.hasSuffix("--format csv"))
        let filtered = try await page(.values, ["campaign": "5239"])
        #expect(filtered.panels[0].command.hasSuffix(", summed with the same for --where campaign=239, --where campaign=39"))
    }

    /// 250 campaigns of 4 digits, campaign N with N installs on one day: more than the campaigns table lists.
    struct ManyCampaigns: PostbackReader {
        func aggregate(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) async throws {
            for number in 1...250 {
                let keys: [String?] = query.dimensions.map { dimension in
                    switch dimension {
                    case .day: "2026-03-02"
                    case .campaign: String(1000 + number)
                    case .network: "adnet1.skadnetwork"
                    default: nil
                    }
                }
                try each(AggregateRow(keys: keys, conversionValue: nil, coarseValue: nil, postbacks: number,
                                      installs: number, redownloads: 0, reengagements: 0, nonWinning: 0, nullValues: 0))
            }
        }
        func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) { ("", []) }
        func export(_ table: ExportTable, header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) async throws {}
        func stats() async throws -> StoreStats {
            StoreStats(postbacks: 31_375, postbacksByKey: [PostbackCounterKey(framework: .skadnetwork, version: "4.0"): 31_375], rejected: 0, rejectedByStatus: [:], rejectedDropped: 0)
        }
        func latestRefusals(limit: Int) async throws -> [RefusalSummary] { [] }
    }

    @Test("the campaigns table lists the 100 with most installs in number order, the rest as one row; pickers are escaped HTML")
    func manyCampaigns() async throws {
        let content = try await page(.overview, ["stack": "campaign"], reader: ManyCampaigns())
        let table = try #require(content.panels.first { $0.id == "campaigns" }?.table)
        #expect(table.rows.count == 101)
        #expect(table.rows.first?.cells[0].text == "1151" && table.rows[99].cells[0].text == "1250")
        #expect(table.rows[100].cells[0].text == "150 more")
        #expect(content.campaignOptions.components(separatedBy: "<option ").count == 252)
        #expect(content.campaignOptions.hasPrefix("<option value=\"\" selected>all</option><option value=\"1001\">1001</option>"))
        #expect(PageContent.html([PageContent.Option(value: "\"><script>", label: "a&b<i>", selected: true)])
                == "<option value=\"&quot;&gt;&lt;script&gt;\" selected>a&amp;b&lt;i&gt;</option>")
    }

    @Test("a campaign the store does not hold shows a sentence, not zeros")
    func unknownCampaign() async throws {
        let content = try await page(.overview, ["campaign": "52"])
        #expect(content.tiles.isEmpty)
        #expect(content.emptyNote == "No postbacks of campaign 52, which the store does not hold: widen the filters above.")
        #expect(content.campaigns.last?.label == "52 (no such campaign stored)")
        #expect(content.panels.allSatisfy { $0.empty != nil && $0.chartJSON == nil })
    }

    @Test("an empty store: a sentence on every page, no filter bar where filters would not apply, — for rates")
    func emptyStore() async throws {
        let reader = DashboardTests.CountersOnly(postbacks: 0)
        let overview = try await page(.overview, [:], reader: reader)
        #expect(overview.emptyNote?.hasPrefix("No postbacks stored yet") == true)
        for page in [DashboardPage.values, .windows, .frameworks] {
            let content = try await self.page(page, [:], reader: reader)
            #expect(content.showsFilters)
            #expect(content.panels.allSatisfy { $0.empty?.hasPrefix("No postbacks stored yet") == true }, "\(page)")
        }
        let refused = try await page(.refused, [:], reader: reader)
        #expect(!refused.showsFilters && refused.emptyNote?.hasPrefix("No postback has been refused") == true)
        #expect(try await !page(.live, [:], reader: reader).showsFilters)
        #expect(PageContent.percent(0, of: 0) == "—" && PageContent.percent(1, of: 4) == "25.0 %")
    }
}
