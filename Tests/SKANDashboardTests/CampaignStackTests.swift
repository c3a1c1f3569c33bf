import Foundation
import SKANCore
import SKANReports
import SKANStore
import SKANTestSupport
import Testing
@testable import SKANDashboard

/// The installs chart stacked by campaign over a small store of real postbacks (issue 36): the same installs per day
/// as the chart by network, the numbers worked out by hand, and the rows the fold of every campaign-day row made
/// before the chart was ranked from each identifier's totals.
@Suite("Dashboard: installs stacked by campaign")
struct CampaignStackTests {
    static let days = ["2026-03-01", "2026-03-02", "2026-03-03"]

    /// Campaigns 1001–1009, campaign k with k installs on day k mod 3 from network A (k even) or B; campaign 5239 at
    /// three tiers (5239 twice and 239 on day 0 from A and B, 39 on day 1) and one non-winning postback of it on day
    /// 2; and a non-winning postback of 1001 on day 0.
    static func store() async throws -> MemoryPostbackStore {
        var entries: [StoreEntry] = []
        func add(_ id: String, network: String, day: Int, didWin: Bool = true) {
            var postback = TestPostbacks.postback(adNetworkID: network)
            postback.sourceIdentifier = id
            postback.didWin = didWin
            if !didWin { postback.conversionValue = nil }
            let signature = try! TestPostbacks.privateKey.signature(for: postback.signedString(postback.version.layout).bytes)
            postback.attributionSignature = Data(signature).base64EncodedString()
            let (verified, body) = TestPostbacks.verified(postback)
            let receivedAt = Date(timeIntervalSince1970: 1_772_323_200 + Double(day) * 86_400 + 3_600)
            entries.append(.accepted(AcceptedPostback(attribution: verified, rawBody: body, receivedAt: receivedAt,
                                                      endpoint: "/postbacks")))
        }
        for k in 1...9 {
            for _ in 0..<k { add(String(1000 + k), network: k % 2 == 0 ? "a.skadnetwork" : "b.skadnetwork", day: k % 3) }
        }
        add("5239", network: "a.skadnetwork", day: 0)
        add("5239", network: "b.skadnetwork", day: 0)
        add("239", network: "b.skadnetwork", day: 0)
        add("39", network: "a.skadnetwork", day: 1)
        add("5239", network: "a.skadnetwork", day: 2, didWin: false)
        add("1001", network: "b.skadnetwork", day: 0, didWin: false)
        let store = MemoryPostbackStore()
        _ = try await store.write(entries)
        return store
    }

    static func page(_ reader: any PostbackReader, stack: String) async throws -> PageContent {
        try await PageContent.build(.overview, view: try DashboardView(query: ["stack": stack]), reader: reader,
                                    schema: nil, known: try await KnownValues.read(from: reader), latestRefusals: 20,
                                    hasCharts: true)
    }

    /// A chart's labels and its series, name and values, from the JSON the page embeds.
    static func chart(_ panel: Panel) throws -> (labels: [String], series: [(String, [Int])]) {
        let json = try #require(panel.chartJSON)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let labels = try #require(object["labels"] as? [String])
        let datasets = try #require(object["datasets"] as? [[String: Any]])
        return (labels, try datasets.map { set in
            (try #require(set["label"] as? String), try #require(set["data"] as? [Int]))
        })
    }

    @Test("the stacked chart has the network chart's installs per day and the hand-computed campaigns and others")
    func totals() async throws {
        let reader = MemoryPostbackReader(try await Self.store())
        let byCampaign = try Self.chart(try #require(try await Self.page(reader, stack: "campaign").panels.first))
        let byNetwork = try Self.chart(try #require(try await Self.page(reader, stack: "network").panels.first))
        func perDay(_ series: [(String, [Int])]) -> [Int] {
            series.reduce(into: [0, 0, 0]) { sums, item in for (day, value) in item.1.enumerated() { sums[day] += value } }
        }
        #expect(byCampaign.labels == Self.days && byNetwork.labels == Self.days)
        #expect(perDay(byCampaign.series) == [21, 13, 15])
        #expect(perDay(byNetwork.series) == perDay(byCampaign.series))
        // Ranked by installs, 1004 before 5239 (4 each) by name; 1001–1003 summed as the others.
        #expect(byCampaign.series.map(\.0) == ["1009", "1008", "1007", "1006", "1005", "1004", "5239", "other (3)"])
        #expect(byCampaign.series.map(\.1) == [[9, 0, 0], [0, 0, 8], [0, 7, 0], [6, 0, 0], [0, 0, 5], [0, 4, 0], [3, 1, 0],
                                               [3, 1, 2]])
    }

    @Test("the chart's table is the one the fold of every campaign-day row made, others included")
    func sameRowsAsTheFold() async throws {
        let reader = MemoryPostbackReader(try await Self.store())
        let content = try await Self.page(reader, stack: "campaign")
        let known = try await KnownValues.read(from: reader)
        // The page before issue 36's change: every row by day and identifier, each identifier counted as its
        // campaign, each day's campaigns in the hierarchy's order, then all but the 7 with most installs folded.
        let full = try await ReportBuilder.run(try DashboardView(query: [:]).request(fields: [.day, .campaign]), on: reader)
        var rows: [ReportRow] = []
        for day in Self.days {
            var campaigns: [String?: ReportRow] = [:]
            for row in full.rows where row.keys[0] == day {
                let campaign = row.keys[1].map(known.campaigns.campaignID(of:))
                campaigns[campaign, default: ReportRow(keys: [day, campaign])].add(row)
            }
            rows += campaigns.values.sorted {
                (known.campaigns.rank(of: $0.keys[1]), $0.keys[1] ?? "") < (known.campaigns.rank(of: $1.keys[1]), $1.keys[1] ?? "")
            }
        }
        let folded = PanelBuilder.keepingTop(PageContent.campaignsShown, of: Report(request: full.request, rows: rows),
                                             weight: \.installs).report
        let table = try #require(content.panels.first?.table)
        #expect(table.rows.map { $0.cells.map(\.text) } == PanelTable(folded).rows.map { $0.cells.map(\.text) })
        #expect(table.rows.first { $0.cells[1].text == "other (3)" }?.cells.map(\.text)
                == ["2026-03-01", "other (3)", "4", "3", "0", "0", "1", "1", "0.2500"])
        // The campaigns table: 5239 with its three tiers, counted once.
        let campaigns = try #require(content.panels.first { $0.id == "campaigns" }?.table)
        let row5239 = try #require(campaigns.rows.first { $0.cells[0].text == "5239" })
        #expect(row5239.cells.map(\.text) == ["5239", "3 identifiers", "5", "4", "1"])
        #expect(campaigns.rows.count == 10)
    }
}
