import Foundation
import Hummingbird
import HummingbirdTesting
import SKANReports
import SKANStore
import Testing
@testable import SKANDashboard

/// The values page's decoded panel carries `skan report --modeled`'s estimates for null-valued postbacks, in columns
/// and a chart line of their own named modeled, beside counted ones that stay exactly what they were.
@Suite("Dashboard: modeled values beside counted ones")
struct ModeledValuesDashboardTests {
    static let day = "2026-03-02"

    /// One day of one network: three winning postbacks with fine value 40 and two winning ones with no value.
    struct HalfNull: PostbackReader {
        func aggregate(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) async throws {
            func keys(_ value: String?) -> [String?] {
                query.dimensions.map { dimension in
                    switch dimension {
                    case .day: ModeledValuesDashboardTests.day
                    case .conversionValue: value
                    case .network: "adnet1.skadnetwork"
                    default: nil
                    }
                }
            }
            let valued = AggregateRow(keys: keys("40"), conversionValue: 40, coarseValue: nil, postbacks: 3, installs: 3,
                                      redownloads: 0, reengagements: 0, nonWinning: 0, nullValues: 0)
            let null = AggregateRow(keys: keys(nil), conversionValue: nil, coarseValue: nil, postbacks: 2, installs: 2,
                                    redownloads: 0, reengagements: 0, nonWinning: 0, nullValues: 2)
            if query.splitsByValue || query.dimensions.contains(.conversionValue) {
                // Rows in key order: the absent value first.
                try each(null)
                try each(valued)
            } else {
                try each(AggregateRow(keys: keys(nil), conversionValue: nil, coarseValue: nil, postbacks: 5, installs: 5,
                                      redownloads: 0, reengagements: 0, nonWinning: 0, nullValues: 2))
            }
        }
        func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) { ("", []) }
        func export(_ table: ExportTable, header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) async throws {}
        func stats() async throws -> StoreStats {
            StoreStats(postbacks: 5, postbacksByKey: [PostbackCounterKey(framework: .skadnetwork, version: "4.0"): 5],
                       rejected: 0, rejectedByStatus: [:], rejectedDropped: 0)
        }
        func latestRefusals(limit: Int) async throws -> [RefusalSummary] { [] }
    }

    static let schema: ConversionSchema = {
        try! ConversionSchema(csv: "conversion_value,coarse_value,event_name,event_count,revenue_low,revenue_high\n"
                                + "40,,subscribe,1,9.99,39.99\n", source: "test")
    }()

    static func revenuePanel() async throws -> Panel {
        let reader = HalfNull()
        let content = try await PageContent.build(.values, view: try DashboardView(query: [:]), reader: reader,
                                                  schema: Self.schema, known: try await KnownValues.read(from: reader),
                                                  latestRefusals: 20, hasCharts: true)
        return try #require(content.panels.first { $0.id == "revenue" })
    }

    @Test("the modeled columns, worked by hand, follow the counted ones, which stay as without them")
    func columns() async throws {
        let panel = try await Self.revenuePanel()
        let counted = ["day", "postbacks", "installs", "redownloads", "reengagements", "non_winning", "null_values",
                       "null_rate", "event_subscribe", "revenue_low", "revenue_high", "revenue_mid"]
        let modeled = ["modeled_postbacks", "modeled_event_subscribe", "modeled_revenue_low", "modeled_revenue_high",
                       "modeled_revenue_mid"]
        #expect(panel.table.columns == counted + modeled)
        let cells = try #require(panel.table.rows.first).cells.map(\.text)
        // Counted: 3 subscriptions at 9.99–39.99; the 2 null postbacks count nowhere but null_values.
        #expect(Array(cells.prefix(counted.count)) == [Self.day, "5", "5", "0", "0", "0", "2", "0.4000", "3",
                                                        "29.97", "119.97", "74.97"])
        // Modeled: the 2 null winning postbacks as 2/3 of the 3 valued ones.
        #expect(Array(cells.suffix(modeled.count)) == ["2", "2.00", "19.98", "79.98", "49.98"])
        #expect(panel.command.hasSuffix(" --schema FILE --modeled"))
        #expect(panel.csvLink.contains("schema=1") && panel.csvLink.contains("modeled=1"))
        // The chart: the counted line and a line of its own for the estimate, never summed into it.
        let chart = try #require(panel.chartJSON)
        #expect(chart.contains(#""revenue (mid)""#) && chart.contains("74.97"))
        #expect(chart.contains(#""modeled revenue (mid), estimate""#) && chart.contains("49.98"))
    }

    @Test("/report.csv gives the modeled columns only with the schema, as skan report --modeled does")
    func csv() async throws {
        let dashboard = try await Dashboard(reader: HalfNull(), schema: Self.schema)
        let router = Router()
        dashboard.addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let modeled = try await client.execute(uri: "/report.csv?by=day&schema=1&modeled=1", method: .get) {
                String(buffer: $0.body)
            }
            #expect(modeled.hasPrefix("day,postbacks,"))
            #expect(modeled.contains(",modeled_postbacks,modeled_event_subscribe,modeled_revenue_low,modeled_revenue_high,modeled_revenue_mid\r\n")
                    || modeled.contains(",modeled_postbacks,modeled_event_subscribe,modeled_revenue_low,modeled_revenue_high,modeled_revenue_mid\n"))
            #expect(modeled.contains(",2,2.00,19.98,79.98,49.98"))
            let plain = try await client.execute(uri: "/report.csv?by=day&modeled=1", method: .get) { String(buffer: $0.body) }
            #expect(!plain.contains("modeled_"))
        }
    }
}
