import Foundation
import Hummingbird
import HummingbirdTesting
import SKANDashboard
import SKANHTTP
import SKANReports
import SKANStore
import Testing
@testable import SKANDashboard

@Suite("Dashboard: views, access and routes")
struct DashboardTests {
    @Test("a URL view: empty values are unset; bad windows, stacks and dates are named")
    func view() throws {
        let view = try DashboardView(query: ["from": "2026-03-01", "to": "", "network": "a.skadnetwork", "window": "1"])
        #expect(view.to == nil && view.from == "2026-03-01")
        #expect(view.filters == [ReportFilter(.adNetwork, equals: "a.skadnetwork"), ReportFilter(.window, equals: "1")])
        #expect(view.reportCommand(fields: [.day]) == "skan report --by day --from 2026-03-01 --where ad-network=a.skadnetwork --where window=1 --format csv")
        for (query, reason) in [(["window": "3"], "window must be 0, 1 or 2, got \"3\""),
                                (["stack": "app"], "stack must be network or campaign, got \"app\""),
                                (["from": "2026-02-30"], "from must be a real day, got \"2026-02-30\""),
                                (["from": "2026-03-02", "to": "2026-03-01"], "from 2026-03-02 is after to 2026-03-01")] {
            #expect(throws: DashboardError.self) { try DashboardView(query: query) }
            do { _ = try DashboardView(query: query) } catch { #expect(error.reason == reason) }
        }
    }

    @Test("numbers for people: thousands separators, decimals and signs kept, text untouched")
    func numbers() {
        #expect(NumberText.grouped("1234567") == "1,234,567")
        #expect(NumberText.grouped("999") == "999")
        #expect(NumberText.grouped("-1234.50") == "-1,234.50")
        #expect(NumberText.grouped("0.0557") == "0.0557")
        #expect(NumberText.grouped("adnet1") == "adnet1")
    }

    @Test("chart JSON never carries a raw < into the page's script element")
    func chartJSON() {
        let spec = ChartSpec(kind: .bar, stacked: true, labels: ["</script><b>"], series: [("x<y", [1, 2.5])], axis: "a")
        #expect(!spec.json.contains("<"))
        #expect(spec.json.contains("\\u003c/script>"))
    }

    @Test("with a token: 401 without it, 200 with the bearer header, and POST /login sets a session cookie that works")
    func bearer() async throws {
        let router = Router()
        let access = try OperatorAccess(host: "127.0.0.1", token: "0123456789abcdef",
                                        options: .init(host: "--host", tokenFile: "--token-file"))
        router.add(middleware: OperatorAccessMiddleware(access, login: true))
        router.get("/") { _, _ in "page" }
        let app = Application(router: router)
        try await app.test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in #expect(response.status == .unauthorized) }
            try await client.execute(uri: "/", method: .get, headers: [.authorization: "Bearer 0123456789abcdeF"]) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/", method: .get, headers: [.authorization: "Bearer 0123456789abcdef"]) { response in
                #expect(response.status == .ok)
            }
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            func post(_ body: String) -> ByteBuffer { ByteBuffer(string: body) }
            try await client.execute(uri: "/login", method: .post, headers: form, body: post("token=wrong")) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.setCookie] == nil)
            }
            // A token in a URL is refused whether right or wrong: URLs end up in histories and proxy logs.
            try await client.execute(uri: "/login?token=0123456789abcdef", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.headers[.setCookie] == nil)
            }
            try await client.execute(uri: "/login", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains(#"<form method="post" action="/login">"#))
            }
            // A browser refused a page gets the form with its 401; an API client gets JSON.
            try await client.execute(uri: "/", method: .get, headers: [.accept: "text/html"]) { response in
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body).contains(#"name="token""#))
            }
            let cookie = try await client.execute(uri: "/login", method: .post, headers: form,
                                                  body: post("other=1&token=0123456789abcdef")) { response in
                #expect(response.status == .seeOther)
                return response.headers[.setCookie] ?? ""
            }
            #expect(cookie.contains("HttpOnly") && !cookie.contains("Secure"))
            // The cookie is a session value, not the token.
            #expect(!cookie.contains("0123456789abcdef"))
            try await client.execute(uri: "/", method: .get, headers: [.cookie: "\(OperatorAccess.cookieName)=0123456789abcdef"]) { response in
                #expect(response.status == .unauthorized)
            }
            var proxied = form
            proxied[.init("X-Forwarded-Proto")!] = "https"
            let secure = try await client.execute(uri: "/login", method: .post, headers: proxied,
                                                  body: post("token=0123456789abcdef")) { response in
                response.headers[.setCookie] ?? ""
            }
            #expect(secure.hasSuffix("; Secure"))
            let pair = String(cookie.split(separator: ";")[0])
            try await client.execute(uri: "/", method: .get, headers: [.cookie: "other=1; " + pair]) { response in
                #expect(response.status == .ok)
            }
        }
    }

    /// A store's read side whose only group is the total: `postbacks` stored, 1 duplicate (none without postbacks).
    struct CountersOnly: PostbackReader {
        var postbacks = 3
        func aggregate(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) async throws {
            guard query.dimensions.isEmpty, postbacks > 0 else { return }
            try each(AggregateRow(keys: [], conversionValue: nil, coarseValue: nil, postbacks: postbacks, installs: 0,
                                  redownloads: 0, reengagements: 0, nonWinning: 0, nullValues: 0))
        }
        func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) { ("", []) }
        func export(_ table: ExportTable, header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) async throws {}
        func stats() async throws -> StoreStats {
            StoreStats(postbacks: postbacks,
                       postbacksByKey: postbacks > 0 ? [PostbackCounterKey(framework: .skadnetwork, version: "4.0"): postbacks] : [:],
                       rejected: 0, rejectedByStatus: [:], rejectedDropped: 0, duplicates: postbacks > 0 ? 1 : 0)
        }
        func latestRefusals(limit: Int) async throws -> [RefusalSummary] { [] }
    }

    @Test("the overview shows the store's duplicate rate: duplicates over all accepted postbacks")
    func duplicateRate() async throws {
        let content = try await PageContent.build(.overview, view: try DashboardView(query: [:]), reader: CountersOnly(),
                                                  schema: nil, known: .empty, latestRefusals: 20, hasCharts: false)
        let tile = try #require(content.tiles.first { $0.id == "duplicate-rate" })
        #expect(tile.value == "25.0 %")
    }

    @Test("stacked by campaign: the campaigns with most installs kept, the rest one row a day, every count kept")
    func topCampaigns() throws {
        // Ten campaigns over two days; campaign c has c installs a day (and one postback more), so 9, 8, 7 lead.
        var rows: [ReportRow] = []
        for day in ["2026-03-01", "2026-03-02"] {
            for campaign in 0..<10 {
                var row = ReportRow(keys: [day, String(campaign)])
                row.installs = campaign
                row.postbacks = campaign + 1
                rows.append(row)
            }
        }
        let full = Report(request: try ReportRequest(fields: [.day, .campaign]), rows: rows)
        let (top, order) = PanelBuilder.keepingTop(3, of: full, weight: \.installs)
        #expect(order == ["9", "8", "7", "other (7)"])
        #expect(top.rows.map { $0.keys[1] } == ["7", "8", "9", "other (7)", "7", "8", "9", "other (7)"])
        let other = try #require(top.rows.last)
        #expect(other.keys == ["2026-03-02", "other (7)"] && other.installs == 21 && other.postbacks == 28)
        #expect(top.rows.map(\.installs).reduce(0, +) == full.rows.map(\.installs).reduce(0, +))
        #expect(top.rows.map(\.postbacks).reduce(0, +) == full.rows.map(\.postbacks).reduce(0, +))
        // Few enough to show each: the report as it was.
        #expect(PanelBuilder.keepingTop(10, of: full, weight: \.installs).report == full)
    }

    @Test("installs per day: every day from the first to the last is a bar, a day without postbacks a zero")
    func everyDay() throws {
        // Across a month end (2026 is not a leap year) and a leap day, days missing from the report filled in.
        #expect(PanelBuilder.everyDay(["2026-02-27", "2026-03-02"]) == ["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"])
        #expect(PanelBuilder.everyDay(["2028-02-28", "2028-03-01"]) == ["2028-02-28", "2028-02-29", "2028-03-01"])
        #expect(PanelBuilder.everyDay(["2026-12-31", "2027-01-01"]) == ["2026-12-31", "2027-01-01"])
        #expect(PanelBuilder.everyDay(["2026-03-05"]) == ["2026-03-05"])
        #expect(PanelBuilder.everyDay([]) == [])
        // Labels that are not days, or a span too long to draw one bar a day, are left as they came.
        #expect(PanelBuilder.everyDay(["2026-03-01", "(none)"]) == ["2026-03-01", "(none)"])
        #expect(PanelBuilder.everyDay(["2016-01-01", "2026-03-01"]) == ["2016-01-01", "2026-03-01"])

        var rows: [ReportRow] = []
        for (day, network, installs) in [("2026-03-01", "a", 2), ("2026-03-01", "b", 1), ("2026-03-04", "b", 5)] {
            var row = ReportRow(keys: [day, network])
            row.installs = installs
            rows.append(row)
        }
        let report = Report(request: try ReportRequest(fields: [.day, .adNetwork]), rows: rows)
        let (labels, series) = PanelBuilder.matrix(report, value: { Double($0.installs) },
                                                   allCategories: PanelBuilder.everyDay(report))
        #expect(labels == ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04"])
        #expect(series.map(\.0) == ["a", "b"])
        #expect(series.map(\.1) == [[2, 0, 0, 0], [1, 0, 0, 5]])
    }
}
