import Foundation
import SKANCore
import SKANReports
import SKANStore
import SKANStorePostgres
import SKANStoreSQLite
import SKANTestSupport
import Testing
@testable import SKANDashboard

/// The installs chart stacked by campaign in a view of one network, one window, a date range, a campaign and their
/// combinations (issue 36), on each engine that keeps rollups: the same panels as the memory store, which counts every
/// postback, and the installs and postbacks of a direct count over the postbacks written.
@Suite("Dashboard: filtered stacks by campaign on each engine", .temporaryFolder)
struct FilteredCampaignStackTests {
    typealias Engine = RollupEngine

    /// One postback written: what a view filters by and what the chart counts.
    struct Fact {
        let network: String
        let identifier: String
        let window: Int
        let day: Int
        let didWin: Bool
    }

    static let networks = ["a.skadnetwork", "b.skadnetwork", "c.skadnetwork"]
    /// Campaigns 1001–1011 at 4 digits, and 5239 at every tier (5239, 239, 39), 10 of them: more than the chart draws.
    static let identifiers = (1001...1011).map(String.init) + ["5239", "239", "39"]

    /// Traffic-shaped postbacks: skewed towards the first networks and identifiers, 60/28/12 % in windows 0/1/2 (no fine
    /// value after window 0), one in ten not winning, over 5 days; deterministic.
    static let facts: [Fact] = {
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<420).map { _ in
            let skew = { (count: Int) in min(next(count), next(count)) }
            let roll = next(100)
            return Fact(network: networks[skew(networks.count)], identifier: identifiers[skew(identifiers.count)],
                        window: roll < 60 ? 0 : roll < 88 ? 1 : 2, day: next(5), didWin: next(10) != 0)
        }
    }()

    static func entry(_ fact: Fact) -> StoreEntry {
        var postback = TestPostbacks.postback(adNetworkID: fact.network, sequenceIndex: fact.window)
        postback.sourceIdentifier = fact.identifier
        postback.didWin = fact.didWin
        postback.conversionValue = fact.window == 0 && fact.didWin ? 20 : nil
        postback.coarseConversionValue = fact.window == 0 && fact.didWin ? nil : .low
        let signature = try! TestPostbacks.privateKey.signature(for: postback.signedString(postback.version.layout).bytes)
        postback.attributionSignature = Data(signature).base64EncodedString()
        let (verified, body) = TestPostbacks.verified(postback)
        let receivedAt = Date(timeIntervalSince1970: 1_772_323_200 + Double(fact.day) * 86_400 + 3_600)
        return .accepted(AcceptedPostback(attribution: verified, rawBody: body, receivedAt: receivedAt, endpoint: "/postbacks"))
    }

    static let days = (0..<5).map { "2026-03-0\($0 + 1)" }

    /// Every filter the page has, alone and combined, stacked by campaign.
    static let views: [[String: String]] = [
        [:],
        ["network": "a.skadnetwork"], ["network": "c.skadnetwork"],
        ["window": "0"], ["window": "1"], ["window": "2"],
        ["network": "b.skadnetwork", "window": "0"], ["network": "a.skadnetwork", "window": "1"],
        ["campaign": "5239", "network": "a.skadnetwork"], ["campaign": "5239", "window": "0"], ["campaign": "1002", "window": "2"],
        ["from": days[1], "to": days[3]], ["from": days[1], "to": days[3], "network": "b.skadnetwork"],
        ["from": days[2], "window": "0", "network": "a.skadnetwork"],
        ["network": "nobody.skadnetwork", "window": "0"],
    ].map { $0.merging(["stack": "campaign"]) { a, _ in a } }

    /// Whether `fact` is in the view of `query`: `campaign` as the hierarchy reads it (5239 stands for 239 and 39).
    static func holds(_ query: [String: String], _ fact: Fact) -> Bool {
        if let network = query["network"], fact.network != network { return false }
        if let window = query["window"], String(fact.window) != window { return false }
        if let from = query["from"], days[fact.day] < from { return false }
        if let to = query["to"], days[fact.day] > to { return false }
        if let campaign = query["campaign"], campaign != fact.identifier,
           !(campaign == "5239" && ["239", "39"].contains(fact.identifier)) { return false }
        return true
    }

    static func page(_ reader: any PostbackReader, _ query: [String: String]) async throws -> PageContent {
        try await PageContent.build(.overview, view: try DashboardView(query: query), reader: reader, schema: nil,
                                    known: try await KnownValues.read(from: reader), latestRefusals: 20, hasCharts: true)
    }

    /// What a panel shows, in text: its chart, its table's cells (and their details), or the sentence instead.
    static func shown(_ panel: Panel) -> [String] {
        [panel.id, panel.chartJSON ?? "", panel.empty ?? "", panel.csvLink]
            + panel.table.rows.map { $0.cells.map { $0.text + ($0.detail.map { " [\($0)]" } ?? "") }.joined(separator: "|") }
    }

    @Test("each filtered stack shows what every postback counted shows, and the installs of a direct count",
          arguments: Engine.allCases)
    func sameAsDirectCount(_ engine: Engine) async throws {
        let entries = Self.facts.map(Self.entry)
        let memory = MemoryPostbackStore()
        _ = try await memory.write(entries)
        let direct = MemoryPostbackReader(memory)
        let half = entries.count / 2
        let reader: any PostbackReader
        var open: (any PostbackStore)?
        switch engine {
        case .sqlite:
            // The first half folded into the rollups (a close folds every row), the second written after and left to
            // the reads, which add the rows not yet folded.
            let path = try TemporaryFolder.current.path("filtered-\(UUID().uuidString).sqlite")
            let first = try await SQLitePostbackStore.open(path: path, durability: .normal)
            try await StoreHost.running([first]) {
                _ = try await first.write(Array(entries.prefix(half)))
                try await first.close()
            }
            let second = try await SQLitePostbackStore.open(path: path, durability: .normal)
            try await StoreHost.running([second]) { _ = try await second.write(Array(entries.dropFirst(half))) }
            open = second
            reader = try SQLitePostbackReader(path: path)
        case .postgres:
            let configuration = try PostgresStoreConfiguration(url: try #require(PostgresTestServer.shared).makeDatabase())
            let store = try await PostgresPostbackStore.open(configuration, capInterval: .seconds(3600))
            try await StoreHost.running([store]) {
                _ = try await store.write(Array(entries.prefix(half)))
                _ = try await store.write(Array(entries.dropFirst(half)))
                try await store.close()
            }
            reader = try await PostgresPostbackReader.open(configuration)
        }
        try await StoreHost.running([reader]) {
            for query in Self.views {
                let page = try await Self.page(reader, query)
                let expected = try await Self.page(direct, query)
                #expect(page.panels.map(Self.shown) == expected.panels.map(Self.shown), "\(engine): \(query)")
                // The chart's installs per day and the campaigns table's postbacks, against the postbacks written.
                let view = Self.facts.filter { Self.holds(query, $0) }
                let installs = Self.days.map { day in view.filter { Self.days[$0.day] == day && $0.window == 0 && $0.didWin }.count }
                let chart = try #require(page.panels.first { $0.id == "installs-by-day" })
                let campaigns = try #require(page.panels.first { $0.id == "campaigns" })
                if view.isEmpty {
                    #expect(chart.chartJSON == nil, "\(query)")
                    continue
                }
                let drawn = try CampaignStackTests.chart(chart)
                var perDay = [Int](repeating: 0, count: Self.days.count)
                for (label, values) in zip(drawn.labels, drawn.series.map(\.1).reduce(into: [Int](repeating: 0, count: drawn.labels.count)) { sums, values in
                    for (index, value) in values.enumerated() { sums[index] += value }
                }) {
                    perDay[try #require(Self.days.firstIndex(of: label))] = values
                }
                #expect(perDay == installs, "\(engine): \(query)")
                let postbacks = campaigns.table.rows.compactMap { Int($0.cells[2].text.replacingOccurrences(of: ",", with: "")) }
                #expect(postbacks.reduce(0, +) == view.count, "\(engine): \(query)")
            }
            await reader.close()
        }
        try await open?.close()
    }
}
