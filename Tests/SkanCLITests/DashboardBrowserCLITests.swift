import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// `skan dashboard` over the demo's database, in headless Chromium: every panel draws its chart, the page's
    /// totals are `skan report`'s, every filter moves them as `skan report` does, every CSV link is exactly the
    /// `skan report` command printed under it, and no page logs to the console. Screenshots at 1280 and 390 px are
    /// kept in `.build/screens/`.
    @Suite("Dashboard in a real browser",
           .enabled(if: HeadlessBrowser.isAvailable, "no headless chromium: see the browser setup test for why"))
    struct DashboardBrowserCLITests {
        static let chartPages = ["/", "/values", "/windows", "/frameworks"]

        @Test("pages, totals, filters, CSV links and screenshots")
        func dashboard() async throws {
            let browser = try HeadlessBrowser.shared.get()
            let folder = try TemporaryFolder.current.url
            // The demo's own database, with the schema its closing hint names, plus two refusals for the refused page.
            let db = folder.appendingPathComponent("demo.sqlite").path
            let demo = try await SkanProcess.offThread {
                try SkanProcess.runBlocking(["demo", "--devices", "600", "--seed", "2", "--db", db],
                                            environment: ["TMPDIR": folder.path]) { _ in }
            }
            try #require(demo.status == 0, "\(demo.stderr)")
            let hint = try #require(demo.stdout.split(separator: "\n").first { $0.hasPrefix("see it in a browser: skan dashboard ") })
            let schema = SkanProcess.packageRoot.appendingPathComponent(String(try #require(hint.split(separator: " ").last))).path
            _ = try await SkanProcess.run(["ingest", "--db", db, "--received-at", "now", "-"], stdin: "{\"version\":\"9\"}\nnot json\n")

            let server = try DashboardProcess(["dashboard", "--db", db, "--port", "0", "--schema", schema])
            defer { server.stop() }
            let base = server.url

            // Every page: charts drawn, nothing on the console, a table beside each chart.
            for path in Self.chartPages + ["/refused", "/relay", "/live"] {
                let page = try browser.load(base + path)
                #expect(page.console.isEmpty, "\(path) logged: \(page.console)")
                let canvases = page.dom.components(separatedBy: "<canvas").count - 1
                let drawn = page.dom.components(separatedBy: "data-rendered=\"true\"").count - 1
                #expect(canvases == drawn, "\(path): \(drawn) of \(canvases) charts drawn")
                if Self.chartPages.contains(path) {
                    #expect(canvases >= 1, "\(path) has charts")
                    #expect(page.dom.components(separatedBy: "<table").count - 1 >= canvases, "\(path): a table per chart")
                }
            }

            // Totals equal skan report's, with and without a date range.
            let days = Self.csvLines(try await SkanProcess.run(["report", "--db", db, "--by", "day", "--format", "csv"]).stdout)
                .dropFirst().map { String($0.split(separator: ",")[0]) }
            #expect(days.count > 20, "the demo's campaign spans its simulated days: \(days)")
            try #require(days.count > 20)
            let (from, to) = (days[days.count / 3], days[days.count * 2 / 3])
            for (query, arguments) in [("", [String]()), ("?from=\(from)&to=\(to)", ["--from", from, "--to", to])] {
                let report = Self.csvLines(try await SkanProcess.run(["report", "--db", db, "--format", "csv"] + arguments).stdout)
                let totals = report[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                let page = try browser.load(base + "/" + query)
                for (tile, column) in [("postbacks", 0), ("installs", 1), ("redownloads", 2), ("reengagements", 3), ("non-winning", 4)] {
                    #expect(Self.tile(tile, in: page.dom) == totals[column], "\(tile) on /\(query)")
                }
            }

            // Every CSV link returns exactly the command printed under it.
            for path in Self.chartPages + ["/?window=1&stack=campaign"] {
                let html = try Self.fetch(base + path).body
                let links = Self.matches(in: html, between: "href=\"/report.csv", and: "\"").map { "/report.csv" + $0 }
                let commands = Self.matches(in: html, between: "the same as <code>", and: "</code>")
                #expect(!links.isEmpty && links.count == commands.count, "\(path): \(links.count) links, \(commands.count) commands")
                for (link, command) in zip(links, commands) {
                    var words = command.replacingOccurrences(of: "&#39;", with: "'").split(separator: " ").map(String.init).dropFirst(2)
                    if let index = words.firstIndex(of: "FILE") { words[index] = schema }
                    let expected = try await SkanProcess.run(["report", "--db", db] + words)
                    let served = try Self.fetch(base + link.replacingOccurrences(of: "&amp;", with: "&"))
                    #expect(served.status == 200 && served.body == expected.stdout, "\(link) against \(command)")
                }
            }

            try await Self.campaignManagerViews(browser: browser, base: base, db: db)

            // A bad parameter is a 400 naming it.
            let bad = try Self.fetch(base + "/?window=9")
            #expect(bad.status == 400 && bad.body.contains("window must be 0, 1 or 2, got \"9\""))

            // The README's screenshot and its phone width, kept for people to look at.
            let screens = SkanProcess.packageRoot.appendingPathComponent(".build/screens")
            try FileManager.default.createDirectory(at: screens, withIntermediateDirectories: true)
            for (path, name) in [("/", "overview"), ("/?stack=campaign", "overview-by-campaign"), ("/values", "values"),
                                 ("/windows", "windows"), ("/frameworks", "frameworks"), ("/refused", "refused")] {
                for width in [1280, 390] {
                    let file = screens.appendingPathComponent("dashboard-\(name)-\(width).png").path
                    try? FileManager.default.removeItem(atPath: file)
                    try browser.screenshot(base + path, to: file, width: width, height: width == 1280 ? 1300 : 2400)
                    let png = FileManager.default.contents(atPath: file) ?? Data()
                    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 20_000, "\(file): \(png.count) bytes")
                }
            }
        }

        /// The demo's database in a campaign manager's words: installs on more than 20 days, one campaign per source
        /// identifier hierarchy, tiers 0–3, every filter honoured on every page that shows it.
        static func campaignManagerViews(browser: HeadlessBrowser, base: String, db: String) async throws {
            let installs = try Self.chart("installs-by-day", in: try browser.load(base + "/").dom)
            #expect(installs.labels > 20 && installs.drawnDays > 20, "installs per day: \(installs)")

            // The demo's ads are 5239, 5240, 1207 and 3120; their 3- and 2-digit forms are the same campaigns.
            let campaigns = ["1207", "3120", "5239", "5240"]
            let byCampaign = try browser.load(base + "/?stack=campaign").dom
            let table = Self.matches(in: byCampaign, between: "<table data-table=\"campaigns\">", and: "</table>").first ?? ""
            let rows = Self.matches(in: table, between: "<tr><td>", and: "</td>")
            #expect(rows == campaigns, "campaigns table: \(rows)")
            let picker = Self.matches(in: byCampaign, between: "<select name=\"campaign\">", and: "</select>").first ?? ""
            #expect(Self.matches(in: picker, between: "<option value=\"", and: "\"") == [""] + campaigns, "\(picker)")
            let series = Self.matches(in: byCampaign, between: "{\"label\":\"", and: "\"")
            #expect(Set(series) == Set(campaigns), "installs stacked by campaign: \(series)")

            let windows = try browser.load(base + "/windows").dom
            for tier in ["tier 0", "tier 1", "tier 2 or 3", "tier 1, 2 or 3", "non-winning"] {
                #expect(windows.contains("\"label\":\"\(tier)\""), "the tiers chart names \(tier)")
            }
            #expect(!windows.contains("digits\""), "no tier is named by its digits")

            // Every filter on every page that shows the filters: each panel's CSV (the numbers behind its chart and
            // table) is what its `skan report` command prints; a campaign is the sum over its identifiers.
            let days = csvLines(try await SkanProcess.run(["report", "--db", db, "--by", "day", "--format", "csv"]).stdout)
                .dropFirst().map { String($0.prefix(10)) }
            let filters = ["network=rival22.skadnetwork", "window=1", "from=\(days[days.count / 2])&to=\(days[days.count - 3])"]
            var total = 0
            for id in ["5239", "239", "39"] {
                let report = csvLines(try await SkanProcess.run(["report", "--db", db, "--where", "campaign=\(id)", "--format", "csv"]).stdout)
                total += Int(report[1].split(separator: ",")[0]) ?? 0
            }
            #expect(Self.tile("postbacks", in: try browser.load(base + "/?campaign=5239").dom) == String(total))
            for page in chartPages {
                for filter in filters {
                    let html = try fetch(base + page + "?" + filter).body
                    #expect(html.contains("<form class=\"filters\""), "\(page)?\(filter) shows the filters")
                    let links = matches(in: html, between: "href=\"/report.csv", and: "\"").map { "/report.csv" + $0 }
                    let commands = matches(in: html, between: "the same as <code>", and: "</code>")
                    #expect(!links.isEmpty && links.count == commands.count, "\(page)?\(filter)")
                    for (link, command) in zip(links, commands) where !command.contains("--schema") {
                        let words = command.replacingOccurrences(of: "&#39;", with: "'").split(separator: " ").map(String.init).dropFirst(2)
                        #expect(words.contains { filter.hasPrefix("from") ? $0 == "--from" : $0.contains(filter) }, "\(command) for \(filter)")
                        let expected = try await SkanProcess.run(["report", "--db", db] + words)
                        let served = try fetch(base + link.replacingOccurrences(of: "&amp;", with: "&"))
                        #expect(served.body == expected.stdout, "\(page)?\(filter): \(link) against \(command)")
                    }
                }
                let html = try fetch(base + page + "?campaign=5239").body
                for link in matches(in: html, between: "href=\"/report.csv", and: "\"") where !link.contains("schema=1") {
                    let csv = csvLines(try fetch(base + "/report.csv" + link.replacingOccurrences(of: "&amp;", with: "&")).body)
                    let by = (link.components(separatedBy: "by=").dropFirst().first?.prefix { $0 != "&" }).map {
                        $0.components(separatedBy: "%2C").count } ?? 0
                    let sum = csv.dropFirst().reduce(0) { $0 + (Int($1.split(separator: ",", omittingEmptySubsequences: false)[by]) ?? 0) }
                    #expect(sum == total, "\(page)?campaign=5239: \(link) counts \(sum) postbacks, campaign 5239 has \(total)")
                }
            }
            for page in ["/refused", "/relay", "/live"] {
                let html = try fetch(base + page + "?network=rival22.skadnetwork").body
                #expect(!html.contains("<form class=\"filters\""), "\(page) shows filters it cannot honour")
            }
        }

        /// A chart's category count, and how many of them have a non-zero value in some series.
        static func chart(_ id: String, in dom: String) throws -> (labels: Int, drawnDays: Int) {
            let json = try #require(matches(in: dom, between: "data-chart-for=\"\(id)\">", and: "</script>").first)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let labels = (object["labels"] as? [String]) ?? []
            let datasets = ((object["datasets"] as? [[String: Any]]) ?? []).map { ($0["data"] as? [Double]) ?? [] }
            let drawn = labels.indices.filter { index in datasets.contains { index < $0.count && $0[index] > 0 } }.count
            return (labels.count, drawn)
        }

        @Test("an empty store: a sentence on every page instead of lone cards and blank charts")
        func emptyStore() async throws {
            let folder = try TemporaryFolder.current.url
            let db = folder.appendingPathComponent("empty.sqlite").path
            _ = try await SkanProcess.run(["ingest", "--db", db, "-"], stdin: "")
            let server = try DashboardProcess(["dashboard", "--db", db, "--port", "0"])
            defer { server.stop() }
            for page in Self.chartPages + ["/refused", "/relay"] {
                let html = try Self.fetch(server.url + page).body
                #expect(html.contains("data-empty"), "\(page) says it has nothing to show")
                #expect(!html.contains("<canvas"), "\(page) draws no empty chart")
            }
            #expect(try Self.fetch(server.url + "/").body.contains("No postbacks stored yet: run skan demo"))
            #expect(try Self.fetch(server.url + "/refused").body.contains("No postback has been refused"))
            #expect(try Self.fetch(server.url + "/relay").body.contains("Nothing is queued and no dead letter is kept"))
        }

        /// CSV records: CRLF-terminated, which Swift reads as one Character, not a "\n".
        static func csvLines(_ text: String) -> [String] {
            text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
        }

        static func tile(_ name: String, in dom: String) -> String? {
            matches(in: dom, between: "data-tile=\"\(name)\">", and: "<").first?.replacingOccurrences(of: ",", with: "")
        }

        static func matches(in text: String, between start: String, and end: String) -> [String] {
            var found: [String] = []
            var rest = text[...]
            while let open = rest.range(of: start), let close = rest[open.upperBound...].range(of: end) {
                found.append(String(rest[open.upperBound..<close.lowerBound]))
                rest = rest[close.upperBound...]
            }
            return found
        }

        static func fetch(_ url: String) throws -> (status: Int, body: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["curl", "-s", "-w", "\n%{http_code}", url]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard let newline = text.lastIndex(of: "\n") else { return (0, text) }
            return (Int(text[text.index(after: newline)...]) ?? 0, String(text[..<newline]))
        }
    }

    @Suite("Dashboard beside the collector")
    struct ServeDashboardCLITests {
        @Test("skan serve --dashboard-port serves the pages on their own listener, not on the postback port")
        func mounted() async throws {
            let folder = try TemporaryFolder.current.url
            let db = folder.appendingPathComponent("new.sqlite").path
            let server = try DashboardProcess(["serve", "--db", db, "--port", "0", "--dashboard-port", "0", "--log-level", "warning"],
                                              marker: "skan serve: dashboard on")
            defer { server.stop() }
            let page = try DashboardBrowserCLITests.fetch(server.url + "/")
            #expect(page.status == 200 && page.body.contains("No postbacks stored yet"))
            let csv = try DashboardBrowserCLITests.fetch(server.url + "/report.csv?by=window")
            #expect(csv.status == 200 && csv.body.hasPrefix("postback_window,postbacks"))
            #expect(try DashboardBrowserCLITests.fetch(server.url + "/postbacks").status == 404)
            let refused = try await SkanProcess.run(["serve", "--db", db, "--port", "0", "--dashboard-port", "0",
                                                     "--dashboard-host", "0.0.0.0"])
            #expect(refused.status != 0 && refused.stderr.contains("--dashboard-token-file"), "\(refused.stderr)")
        }
    }

    @Suite("Dashboard browser setup")
    struct DashboardBrowserSetupCLITests {
        @Test("the browser suite runs, or says why it was skipped; SKAN_REQUIRE_BROWSER=1 makes a skip a failure")
        func setup() {
            if let reason = HeadlessBrowser.skipReason {
                FileHandle.standardError.write(Data("Dashboard browser tests skipped: \(reason)\n".utf8))
                #expect(!HeadlessBrowser.isRequired, "SKAN_REQUIRE_BROWSER=1, but no headless chromium: \(reason)")
            }
        }
    }
}

/// `skan dashboard` as a child process on a free port, stopped by the test.
final class DashboardProcess: Sendable {
    let url: String
    private let process: Process

    /// Starts `skan arguments` and waits for the line holding `marker`, whose `http://…` address becomes ``url``.
    init(_ arguments: [String], marker: String = "skan dashboard:") throws {
        let process = Process()
        process.executableURL = SkanProcess.binary
        process.arguments = arguments
        process.currentDirectoryURL = SkanProcess.packageRoot
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // "skan dashboard: http://127.0.0.1:PORT/" (or the marker's line) once it listens.
        var text = ""
        while !(text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains { $0.contains(marker) }) {
            let chunk = SkanProcess.readAvailable(out.fileHandleForReading.fileDescriptor)
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = text.split(separator: "\n").first { $0.contains(marker) }.map(String.init) ?? ""
        guard let start = line.range(of: "http://") else {
            process.terminate()
            throw HeadlessBrowser.SetupFailure(reason: "skan dashboard did not start: \(text)")
        }
        url = String(line[start.lowerBound...].prefix { !$0.isWhitespace }).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        self.process = process
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
