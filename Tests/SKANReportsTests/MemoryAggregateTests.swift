import Foundation
import SKANCore
import SKANStore
import SKANTestSupport
import Testing

/// The memory engine's aggregates are the reference the SQL engines are held to, so they are checked by hand here.
@Suite("Memory engine aggregates")
struct MemoryAggregateTests {
    static func accepted(version: String?, framework: Framework = .skadnetwork, window: Int?, didWin: Bool?, app: Int,
                         at time: String, network: String = "a", conversionType: ConversionType = .download) -> StoreEntry {
        let template = TestPostbacks.verified()
        let fields = AttributionFields(network: network, dedupID: UUID().uuidString, appID: app, window: window, didWin: didWin,
                                       conversionType: conversionType, frameworkVersion: version, signature: "s")
        let date = ISO8601DateFormatter().date(from: time)!
        return .accepted(AcceptedPostback(attribution: VerifiedAttribution(framework: framework, fields: fields,
                                                                           keyName: "k", scheme: "s", note: nil,
                                                                           detail: template.0.detail),
                                          rawBody: [], receivedAt: date, endpoint: "/postbacks"))
    }

    static func rows(_ query: AggregateQuery, _ entries: [StoreEntry]) async throws -> [AggregateRow] {
        let store = MemoryPostbackStore()
        _ = try await store.write(entries)
        var rows: [AggregateRow] = []
        try await MemoryPostbackReader(store).aggregate(query) { rows.append($0) }
        return rows
    }

    @Test("the install day takes 36 hours up to 3.0, and 84, 252 or 924 by window for 4.0 and AdAttributionKit")
    func installDay() async throws {
        let entries = [
            Self.accepted(version: "3.0", window: nil, didWin: true, app: 1, at: "2026-03-02T13:00:00Z"),  // -36 h: 03-01 01:00
            Self.accepted(version: "4.0", window: 1, didWin: true, app: 1, at: "2026-03-11T06:00:00Z"),  // -252 h: 02-28
            Self.accepted(version: nil, framework: .adAttributionKit, window: 2, didWin: true, app: 1,
                          at: "2026-04-01T00:00:00Z"),  // -924 h: 02-21
        ]
        let rows = try await Self.rows(AggregateQuery(dimensions: [.day], day: .install), entries)
        #expect(rows.map(\.keys) == [["2026-02-21"], ["2026-02-28"], ["2026-03-01"]])
    }

    @Test("numbers sort as numbers, absent first; installs, non-winning and re-engagements counted as the SQL counts them")
    func orderAndCounts() async throws {
        let entries = [
            Self.accepted(version: "4.0", window: 10, didWin: true, app: 9, at: "2026-03-01T00:00:00Z"),
            Self.accepted(version: "4.0", window: 2, didWin: false, app: 10, at: "2026-03-01T00:00:00Z"),
            Self.accepted(version: "2.2", window: nil, didWin: nil, app: 10, at: "2026-03-01T00:00:00Z"),
            Self.accepted(version: nil, framework: .adAttributionKit, window: 0, didWin: true, app: 9,
                          at: "2026-03-01T00:00:00Z", conversionType: .reengagement),
        ]
        let byWindow = try await Self.rows(AggregateQuery(dimensions: [.window]), entries)
        #expect(byWindow.map(\.keys) == [[nil], ["0"], ["2"], ["10"]])
        #expect(byWindow.map(\.installs) == [1, 0, 0, 0])
        #expect(byWindow.map(\.reengagements) == [0, 1, 0, 0])
        #expect(byWindow.map(\.nonWinning) == [0, 0, 1, 0])
        let byApp = try await Self.rows(AggregateQuery(dimensions: [.app]), entries)
        #expect(byApp.map(\.keys) == [["9"], ["10"]])
        let none = try await Self.rows(AggregateQuery(dimensions: [], filters: [.init(.network, equals: "nobody")]), entries)
        #expect(none.map(\.postbacks) == [0], "one row of zeros, as SQL gives over no rows")
    }
}
