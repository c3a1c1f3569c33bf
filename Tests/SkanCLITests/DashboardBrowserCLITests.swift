import Foundation
import Testing

extension CommandLineSuites {
    /// `skan dashboard` over a simulated campaign, in headless Chromium: every panel draws its chart, the page's
    /// totals are `skan report`'s, a date filter moves them as `--from/--to` does, every CSV link is exactly the
    /// `skan report` command printed under it, and no page logs to the console. Screenshots are kept in
    /// `.build/test-artifacts/`.
    @Suite("Dashboard in a real browser",
           .enabled(if: HeadlessBrowser.isAvailable, "no headless chromium: see the browser setup test for why"))
    struct DashboardBrowserCLITests {
        static let chartPages = ["/", "/values", "/windows", "/frameworks"]

        @Test("pages, totals, filters, CSV links and screenshots")
        func dashboard() async throws {
            let browser = try HeadlessBrowser.shared.get()
            let folder = try SkanProcess.makeTemporaryFolder("skan-dashboard")
            defer { try? FileManager.default.removeItem(at: folder) }
            let db = folder.appendingPathComponent("campaign.sqlite").path
            let postbacks = folder.appendingPathComponent("p.jsonl").path
            let schema = SkanProcess.packageRoot.appendingPathComponent("Samples/schemas/skan-4.0-subscription.csv").path
            let campaign = SkanProcess.packageRoot.appendingPathComponent("Samples/campaigns/skan-4.0-subscription.json").path
            let key = SkanProcess.packageRoot.appendingPathComponent("Keys/test/simulated-apple-p256-public-key.pem").path
            #expect(try await SkanProcess.run(["simulate", "--campaign", campaign, "--seed", "2", "--devices", "600",
                                               "--out", postbacks]).status == 0)
            #expect(try await SkanProcess.run(["ingest", "--db", db, "--apple-key-p256", key, postbacks]).status == 0)
            _ = try await SkanProcess.run(["ingest", "--db", db, "--received-at", "now", "-"], stdin: "{\"version\":\"9\"}\nnot json\n")

            let server = try DashboardProcess(["dashboard", "--db", db, "--port", "0", "--schema", schema])
            defer { server.stop() }
            let base = server.url

            // Every page: charts drawn, nothing on the console, a table beside each chart.
            for path in Self.chartPages + ["/refused", "/live"] {
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
            #expect(days.count >= 5, "the campaign spans days: \(days)")
            try #require(days.count >= 5)
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

            // A bad parameter is a 400 naming it.
            let bad = try Self.fetch(base + "/?window=9")
            #expect(bad.status == 400 && bad.body.contains("window must be 0, 1 or 2, got \"9\""))

            let artefacts = SkanProcess.packageRoot.appendingPathComponent(".build/test-artifacts")
            try FileManager.default.createDirectory(at: artefacts, withIntermediateDirectories: true)
            for (name, width) in [("dashboard-overview.png", 1280), ("dashboard-overview-phone.png", 390)] {
                let file = artefacts.appendingPathComponent(name).path
                try? FileManager.default.removeItem(atPath: file)
                try browser.screenshot(base + "/", to: file, width: width, height: 1400)
                let png = FileManager.default.contents(atPath: file) ?? Data()
                #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 20_000, "\(name): \(png.count) bytes")
            }
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
            let folder = try SkanProcess.makeTemporaryFolder("skan-serve-dashboard")
            defer { try? FileManager.default.removeItem(at: folder) }
            let db = folder.appendingPathComponent("new.sqlite").path
            let server = try DashboardProcess(["serve", "--db", db, "--port", "0", "--dashboard-port", "0", "--log-level", "warning"],
                                              marker: "skan serve: dashboard on")
            defer { server.stop() }
            let page = try DashboardBrowserCLITests.fetch(server.url + "/")
            #expect(page.status == 200 && page.body.contains("data-tile=\"postbacks\">0<"))
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
