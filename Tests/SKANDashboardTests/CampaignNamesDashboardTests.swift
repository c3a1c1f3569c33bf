import Foundation
import SKANCore
import SKANReports
import SKANStore
import Synchronization
import Testing
@testable import SKANDashboard

/// Names on the dashboard: where a campaign map is stored, the pickers, the installs chart's legend and the
/// campaigns table show each campaign's name beside its number; without one, the pages are as before; the CSV keeps
/// the numbers.
@Suite("Dashboard: campaign names")
struct CampaignNamesDashboardTests {
    typealias Tiered = CampaignManagerDashboardTests.TieredCampaign

    static func map(_ rows: String) throws -> CampaignMap {
        try CampaignMap(csv: CampaignMap.columns.joined(separator: ",") + "\n" + rows, source: "names.csv")
    }

    func page(_ query: [String: String], names: CampaignMap?) async throws -> PageContent {
        let reader = Tiered()
        let view = try DashboardView(query: query)
        let labels = CampaignLabels(map: names, network: view.network, day: view.to)
        return try await PageContent.build(.overview, view: view, reader: reader, schema: nil,
                                           known: try await KnownValues.read(from: reader), names: labels,
                                           latestRefusals: 20, hasCharts: true)
    }

    @Test("the picker, the legend and the campaigns table name a mapped campaign beside its number")
    func named() async throws {
        let names = try Self.map("adnet1.skadnetwork,5239,,,,Spring sale,Lapsed players,,\n")
        let content = try await page(["stack": "campaign"], names: names)
        #expect(content.campaigns.map(\.label) == ["all", "5239 · Spring sale (with 239, 39)"])
        let chart = try #require(content.panels.first { $0.id == "installs-by-day" }?.chartJSON)
        #expect(chart.contains("Spring sale"))
        let table = try #require(content.panels.first { $0.id == "campaigns" }?.table)
        #expect(table.columns == ["campaign", "campaign_name", "source identifiers", "postbacks", "installs", "non_winning"])
        #expect(table.rows.map { $0.cells.prefix(2).map(\.text) } == [["5239", "Spring sale"]])
    }

    @Test("an unmapped campaign is shown as such, and a store without a map shows numbers alone")
    func unmappedAndNone() async throws {
        let other = try Self.map("adnet1.skadnetwork,1207,,,,News readers,,,\n")
        let content = try await page(["stack": "campaign"], names: other)
        let table = try #require(content.panels.first { $0.id == "campaigns" }?.table)
        #expect(table.rows.map { $0.cells.prefix(2).map(\.text) } == [["5239", "(unmapped)"]])
        #expect(content.campaigns.map(\.label) == ["all", "5239 (with 239, 39)"])

        let plain = try await page(["stack": "campaign"], names: nil)
        let plainTable = try #require(plain.panels.first { $0.id == "campaigns" }?.table)
        #expect(plainTable.columns == ["campaign", "source identifiers", "postbacks", "installs", "non_winning"])
    }

    @Test("a name is the view's network's, on the view's last day; networks that disagree show both")
    func networkAndDay() throws {
        let names = try Self.map("""
            adnet1.skadnetwork,5239,,,2026-03-31,Spring sale,,,
            adnet1.skadnetwork,5239,,2026-04-01,,Summer sale,,,
            rival22.skadnetwork,5239,,,,Rival brand,,,

            """)
        #expect(CampaignLabels(map: names, network: "adnet1.skadnetwork", day: "2026-03-02").name("5239") == "Spring sale")
        #expect(CampaignLabels(map: names, network: "adnet1.skadnetwork", day: "2026-04-02").name("5239") == "Summer sale")
        #expect(CampaignLabels(map: names, network: nil, day: "2026-03-02").name("5239") == "Spring sale / Rival brand")
        #expect(CampaignLabels(map: names, network: "other.skadnetwork", day: nil).name("5239") == nil)
        #expect(CampaignLabels(map: names, network: "adnet1.skadnetwork", day: "2026-03-02").name("39") == "Spring sale")
    }

    /// A map store that counts how often its rows are read.
    final class CountingStore: CampaignMapStore {
        let inner = MemoryCampaignMapStore()
        let reads = Mutex(0)
        func migrate() async throws(StoreError) {}
        func replace(_ imported: CampaignMapImport) async throws(StoreError) -> CampaignMapImport.Outcome {
            try await inner.replace(imported)
        }
        func entries() async throws(StoreError) -> [CampaignMap.Entry] {
            reads.withLock { $0 += 1 }
            return try await inner.entries()
        }
        func imports() async throws(StoreError) -> [CampaignMapImport.Record] { try await inner.imports() }
        func close() async {}
    }

    @Test("pages read the map's rows again only after an import")
    func readsRowsAfterImportsOnly() async throws {
        let store = CountingStore()
        let dashboard = try await Dashboard(reader: Tiered(), campaignMaps: store)
        let view = try DashboardView(query: [:])
        _ = try await store.replace(CampaignMapImport(try Self.map("adnet1.skadnetwork,5239,,,,Spring sale,,,\n"),
                                                      source: "a.csv", importedAt: .now))
        for _ in 0..<3 { #expect(try await dashboard.names(for: view).name("5239") == "Spring sale") }
        #expect(store.reads.withLock { $0 } == 1)
        _ = try await store.replace(CampaignMapImport(try Self.map("adnet1.skadnetwork,5239,,,,Summer sale,,,\n"),
                                                      source: "b.csv", importedAt: .now))
        #expect(try await dashboard.names(for: view).name("5239") == "Summer sale")
        #expect(store.reads.withLock { $0 } == 2)
    }

    @Test("the dashboard reads the stored map once per page: an import shows on the next page")
    func storedMap() async throws {
        let store = MemoryCampaignMapStore()
        let dashboard = try await Dashboard(reader: Tiered(), campaignMaps: store)
        let view = try DashboardView(query: [:])
        #expect(try await dashboard.names(for: view).isEmpty)
        _ = try await store.replace(CampaignMapImport(try Self.map("adnet1.skadnetwork,5239,,,,Spring sale,,,\n"),
                                                  source: "names.csv", importedAt: .now))
        #expect(try await dashboard.names(for: view).name("5239") == "Spring sale")
    }
}
