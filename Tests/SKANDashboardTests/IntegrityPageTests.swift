import Foundation
import Hummingbird
import HummingbirdTesting
import SKANReports
import SKANStore
import Testing
@testable import SKANDashboard

@Suite("Dashboard: the value integrity page")
struct IntegrityPageTests {
    /// A read side holding one conflict whose client address and path are hostile HTML, or none.
    struct ConflictReader: PostbackReader {
        let conflicts: Int
        static let hostile = "<script>alert(1)</script>"

        func aggregate(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) async throws {}
        func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) { ("", []) }
        func export(_ table: ExportTable, header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) async throws {}
        func stats() async throws -> StoreStats {
            StoreStats(postbacks: 10, postbacksByKey: [:], rejected: 0, rejectedByStatus: [:], rejectedDropped: 0,
                       duplicates: 4, conflicts: conflicts)
        }
        func latestRefusals(limit: Int) async throws -> [RefusalSummary] { [] }
        func latestConflicts(limit: Int) async throws -> [ConflictSummary] {
            guard conflicts > 0 else { return [] }
            var values: [ColumnValue] = [.text("2026-03-05T00:42:09.569Z"), .text("skadnetwork"), .text("adnet1.skadnetwork"),
                                         .text("ca1ccccc-1aa5-49ee-abb7-68e53a188f70"), .integer(0), .text("conversion-value"),
                                         .text("network"), .text("/postbacks"), .text("developer"), .text("/" + Self.hostile),
                                         .text(Self.hostile), .text("198.51.100.2")]
            values += [.integer(20), .integer(42), .null, .null, .null, .null, .integer(1), .integer(1)]
            return [ConflictSummary(values: values)]
        }
    }

    static func page(_ reader: ConflictReader) async throws -> (status: HTTPResponse.Status, body: String) {
        let dashboard = try await Dashboard(reader: reader)
        let router = Router()
        dashboard.addRoutes(to: router)
        return try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/integrity", method: .get) { ($0.status, String(buffer: $0.body)) }
        }
    }

    @Test("shows the conflict counters and the latest conflicts, every stored text escaped")
    func conflicts() async throws {
        let (status, html) = try await Self.page(ConflictReader(conflicts: 3))
        #expect(status == .ok)
        #expect(html.contains(#"data-tile="conflicts">3<"#))
        #expect(html.contains(#"data-tile="conflict-rate">75.0 %<"#))
        #expect(html.contains("Latest conflicts"))
        #expect(html.contains("conversion-value=20;coarse-value=;country=;interaction=1"))
        #expect(html.contains("conversion-value=42;coarse-value=;country=;interaction=1"))
        // Where each side came from, the first (counted) copy's address too.
        #expect(html.contains("network /postbacks from 198.51.100.2"))
        #expect(!html.contains(ConflictReader.hostile))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("skan report --integrity --format csv"))
        #expect(html.contains(#"href="/integrity""#))
    }

    @Test("with no conflict it says so, and shows no table")
    func none() async throws {
        let (status, html) = try await Self.page(ConflictReader(conflicts: 0))
        #expect(status == .ok)
        #expect(html.contains("No repeat has differed"))
        #expect(!html.contains("Latest conflicts"))
    }
}
