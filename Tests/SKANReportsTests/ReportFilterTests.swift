import Foundation
import SKANReports
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// `skan report --where`: a filtered report counts exactly the postbacks the unfiltered report shows in that
/// field's row, for every kind of field (text, number, boolean, absent).
@Suite("Report filters", .temporaryFolder)
struct ReportFilterTests {
    static func reader() async throws -> any PostbackReader {
        var (entries, _) = try GoldenReportTests.simulatedEntries("skan-4.0-subscription", devices: 300)
        entries += try GoldenReportTests.simulatedEntries("skan-3.0-game", devices: 100).entries
        let path = try TemporaryFolder.current.path("filter-\(UUID().uuidString).sqlite")
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        _ = try await store.write(entries)
        try await store.close()
        return try SQLitePostbackReader(path: path)
    }

    @Test("each row of a report by one field equals the total of the report filtered on that row's value",
          arguments: [ReportField.adNetwork, .campaign, .window, .didWin, .version, .conversionValue, .coarseValue,
                      .fidelity, .interaction, .tier, .day])
    func rowsEqualFilteredTotals(field: ReportField) async throws {
        let reader = try await Self.reader()
        let grouped = try await ReportBuilder.run(try ReportRequest(fields: [field]), on: reader)
        #expect(grouped.rows.count >= 2, "the sample has several values of \(field)")
        var sum = 0
        for row in grouped.rows {
            let filter = ReportFilter(field, equals: row.keys[0])
            let total = try await ReportBuilder.run(try ReportRequest(fields: [], filters: [filter]), on: reader)
            #expect(total.rows.count == 1)
            #expect(total.rows.first?.postbacks == row.postbacks, "\(filter)")
            #expect(total.rows.first?.installs == row.installs, "\(filter)")
            #expect(total.rows.first?.nullValues == row.nullValues, "\(filter)")
            sum += total.rows.first?.postbacks ?? 0
        }
        let all = try await ReportBuilder.run(try ReportRequest(fields: []), on: reader)
        #expect(sum == all.rows.first?.postbacks)
        await reader.close()
    }

    @Test("two filters must both hold; a value no postback has gives zero")
    func conjunction() async throws {
        let reader = try await Self.reader()
        let grouped = try await ReportBuilder.run(try ReportRequest(fields: [.adNetwork, .window]), on: reader)
        let row = try #require(grouped.rows.first { $0.keys[1] == "1" })
        let filters = [ReportFilter(.adNetwork, equals: row.keys[0]), ReportFilter(.window, equals: "1")]
        let total = try await ReportBuilder.run(try ReportRequest(fields: [], filters: filters), on: reader)
        #expect(total.rows.first?.postbacks == row.postbacks)
        let none = try await ReportBuilder.run(try ReportRequest(fields: [], filters: [ReportFilter(.adNetwork, equals: "nobody")]),
                                               on: reader)
        #expect(none.rows.first?.postbacks ?? 0 == 0)
        await reader.close()
    }

    @Test("--where text is FIELD=VALUE; an unknown field or a missing = is named")
    func parsing() throws {
        #expect(try ReportFilter(parsing: "window=0") == ReportFilter(.window, equals: "0"))
        #expect(try ReportFilter(parsing: "window=") == ReportFilter(.window, equals: nil))
        #expect(try ReportFilter(parsing: "ad-network=a=b") == ReportFilter(.adNetwork, equals: "a=b"))
        #expect(throws: ReportError.self) { try ReportFilter(parsing: "window") }
        do {
            _ = try ReportFilter(parsing: "colour=blue")
            Issue.record("an unknown field was accepted")
        } catch {
            #expect(error.reason.contains("unknown field \"colour\""))
        }
    }
}
