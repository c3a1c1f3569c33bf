import Foundation
import SKANCore
import SKANReports
import SKANStore
import Testing

/// Schemas of several tables: per app, per window and dated versions in the CSV, Google Ads'
/// `SkAdNetworkConversionValueSchema` JSON decoded per window, and the modeled columns on a case checked by hand.
@Suite("Conversion value schemas by app, window and day")
struct SchemaVersionTests {
    static let googleAdsSample = GoldenReportTests.root
        .appendingPathComponent("Samples/schemas/skan-4.0-subscription-google-ads.json").path

    static func names(_ events: [ConversionSchema.Event]) -> [String] { events.map(\.name) }

    @Test("a Google Ads schema decodes each window by its own mappings, for its app only")
    func googleAdsPerWindow() throws {
        let schema = try ConversionSchema.load(path: Self.googleAdsSample)
        let app = "525463029"
        func events(_ fine: Int?, _ coarse: CoarseValue?, window: Int?, app: String? = app) -> [ConversionSchema.Event] {
            schema.events(conversionValue: fine, coarseValue: coarse, app: app, window: window)
        }
        // Fine values are the first postback's.
        #expect(events(40, nil, window: 0) == [.init(name: "subscribe", count: 1, revenueLow: 9.99, revenueHigh: 39.99)])
        #expect(events(6, nil, window: 0) == [.init(name: "onboarding", count: 1, revenueLow: 0, revenueHigh: 0)])
        // A postback before 4.0 has no window: it is its install's first.
        #expect(events(20, nil, window: nil) == [.init(name: "trial-start", count: 1, revenueLow: 0, revenueHigh: 0)])
        // One coarse value, three meanings: each window's postback_mappings entry.
        #expect(events(nil, .high, window: 0) == [.init(name: "subscribe", count: 1, revenueLow: 9.99, revenueHigh: 59.99)])
        #expect(events(nil, .high, window: 1) == [.init(name: "subscribe", count: 1, revenueLow: 9.99, revenueHigh: 9.99)])
        #expect(events(nil, .high, window: 2) == [.init(name: "renewal", count: 1, revenueLow: 9.99, revenueHigh: 9.99)])
        #expect(events(nil, .low, window: 2) == [.init(name: "open", count: 3, revenueLow: 0, revenueHigh: 0)])
        // Window 1 has no fine mappings, another app nothing, a null value nothing.
        #expect(events(40, nil, window: 1).isEmpty)
        #expect(events(40, nil, window: 0, app: "1").isEmpty)
        #expect(events(nil, nil, window: 0).isEmpty)
        #expect(schema.eventNames == ["onboarding", "open", "renewal", "subscribe", "trial-start"])
        #expect(schema.isPerApp && schema.isPerWindow && !schema.isDated)
    }

    @Test("the lowerCamelCase JSON names and int64 numbers as text read the same")
    func camelCase() throws {
        let json = """
            {"appId":"9","postbackMappings":[{"postbackSequenceIndex":"1","coarseGrainedConversionValueMappings":
             {"mediumConversionValueMapping":{"mappedEvents":[{"mappedEventName":"level","eventCounter":"2",
             "eventRevenueValue":1.5}]}}}]}
            """
        let schema = try ConversionSchema(googleAds: Data(json.utf8), source: "g.json")
        #expect(schema.events(conversionValue: nil, coarseValue: .medium, app: "9", window: 1)
                == [.init(name: "level", count: 2, revenueLow: 1.5, revenueHigh: 1.5)])
    }

    @Test("a malformed Google Ads schema is refused naming the path, the value and what was expected",
          arguments: [
            (#"{"postback_mappings":[]}"#, "g.json: app_id: expected the app's App Store id (a SkAdNetworkConversionValueSchema)"),
            (#"{"app_id":"9","postback_mappings":[{"postback_sequence_index":5}]}"#,
             "g.json: postback_mappings[0].postback_sequence_index: expected 0, 1 or 2, got 5"),
            (#"{"app_id":"9","fine_grained_conversion_value_mappings":[{"fine_grained_conversion_value":64}]}"#,
             "g.json: fine_grained_conversion_value_mappings[0].fine_grained_conversion_value: expected an integer 0...63, got \"64\""),
            (#"{"app_id":"9","postback_mappings":[{"coarse_grained_conversion_value_mappings":{"low_conversion_value_mapping":{"mapped_events":[{"event_counter":1}]}}}]}"#,
             "g.json: postback_mappings[0].coarse_grained_conversion_value_mappings.low_conversion_value_mapping.mapped_events[0].mapped_event_name: expected the event's name, got nothing"),
            (#"{"app_id":"9"}"#, "g.json: no fine_grained_conversion_value_mappings and no postback_mappings: nothing to decode"),
            ("[1]", "g.json: expected a JSON object"),
          ])
    func googleAdsRefused(json: String, message: String) {
        #expect(throws: ReportError(.invalidSchema, message)) {
            try ConversionSchema(googleAds: Data(json.utf8), source: "g.json")
        }
    }

    @Test("CSV scope columns: the most specific table decodes wholly, and the version in force on the install day")
    func csvScopes() throws {
        let schema = try ConversionSchema(csv: """
            conversion_value,coarse_value,event_name,event_count,revenue_low,revenue_high,app_id,postback_window,valid_from
            10,,general,1,0,0,,,
            ,high,general,1,0,0,,,
            10,,app-old,1,0,0,7,,
            10,,app-new,1,1,2,7,,2026-03-01
            ,high,app-late-window,1,5,5,7,2,
            """, source: "v2.csv")
        func first(_ fine: Int?, _ coarse: CoarseValue?, app: String?, window: Int?, day: String?) -> String? {
            schema.events(conversionValue: fine, coarseValue: coarse, app: app, window: window, installDay: day).first?.name
        }
        #expect(first(10, nil, app: "8", window: 0, day: "2026-03-05") == "general")
        #expect(first(10, nil, app: "7", window: 0, day: "2026-02-28") == "app-old")
        #expect(first(10, nil, app: "7", window: 0, day: "2026-03-01") == "app-new")
        #expect(first(10, nil, app: "7", window: 0, day: nil) == "app-new", "an unknown day takes the latest version")
        #expect(first(nil, .high, app: "7", window: 2, day: "2026-03-05") == "app-late-window")
        // The app's own table decodes window 0 wholly: it has no coarse row, so the general one does not fill in.
        #expect(first(nil, .high, app: "7", window: 0, day: "2026-03-05") == nil)
        #expect(first(nil, .high, app: "8", window: 1, day: "2026-03-05") == "general")
        #expect(schema.isDated && schema.isPerApp && schema.isPerWindow)
    }

    @Test("a bad scope cell is refused naming the row, the field and the value",
          arguments: [
            ("postback_window", "3", "v2.csv: row 2: postback_window must be 0, 1 or 2, got \"3\""),
            ("valid_from", "2026-02-30", "v2.csv: row 2: valid_from must be a day YYYY-MM-DD, got \"2026-02-30\""),
          ])
    func badScope(column: String, value: String, message: String) {
        #expect(throws: ReportError(.invalidSchema, message)) {
            try ConversionSchema(csv: "conversion_value,event_name,event_count,revenue_low,revenue_high,\(column)\n1,open,1,0,0,\(value)\n",
                                 source: "v2.csv")
        }
    }

    @Test("a dated schema needs install days, and --modeled a schema")
    func datedNeedsInstallDays() throws {
        let dated = try ConversionSchema(csv: "conversion_value,event_name,event_count,revenue_low,revenue_high,valid_from\n1,open,1,0,0,2026-01-01\n",
                                         source: "d.csv")
        #expect(throws: ReportError.self) { try ReportRequest(fields: [.day], schema: dated) }
        _ = try ReportRequest(fields: [.day], day: .install, schema: dated)
        #expect(throws: ReportError.self) { try ReportRequest(fields: [], modeled: true) }
    }

    @Test("modeled columns scale the counted ones by null-valued winning postbacks over valued ones, as checked by hand")
    func modeledByHand() throws {
        var schema = ConversionSchema()
        schema.add(.init(name: "purchase", count: 1, revenueLow: 1, revenueHigh: 2), fine: 5)
        let request = try ReportRequest(fields: [.adNetwork], schema: schema, modeled: true)
        let report = Report(request: request)
        #expect(report.header.suffix(5) == ["modeled_postbacks", "modeled_event_purchase", "modeled_revenue_low",
                                            "modeled_revenue_high", "modeled_revenue_mid"])
        // 10 postbacks: 6 with a value (4 of them value 5, a purchase each), 4 without, 1 of those non-winning.
        var row = ReportRow(keys: ["n"])
        row.postbacks = 10
        row.nullValues = 4
        row.nonWinning = 1
        row.events = ["purchase": 4]
        row.revenueLow = 4
        row.revenueHigh = 8
        // By hand: 3 null-valued winning postbacks, modeled as the 6 valued ones: 3/6 of each count.
        #expect(Array(report.cells(row).suffix(5)) == ["3", "2.00", "2.00", "4.00", "3.00"])
        // The counted columns are the same with or without --modeled.
        let plain = Report(request: try ReportRequest(fields: [.adNetwork], schema: schema))
        #expect(Array(report.cells(row).prefix(plain.header.count)) == plain.cells(row))
        // Nothing valued to scale by: unknown, not zero.
        var unknown = ReportRow(keys: ["m"])
        unknown.postbacks = 2
        unknown.nullValues = 2
        #expect(Array(report.cells(unknown).suffix(5)) == ["2", "", "", "", ""])
    }

    @Test("a Google Ads schema decodes a simulated campaign per window, and its modeled columns follow the counted ones")
    func googleAdsReport() async throws {
        let (entries, _) = try GoldenReportTests.simulatedEntries("skan-4.0-subscription", devices: 200)
        let store = MemoryPostbackStore()
        try await store.migrate()
        _ = try await store.write(entries)
        let reader = MemoryPostbackReader(store)
        let schema = try ConversionSchema.load(path: Self.googleAdsSample)
        let request = try ReportRequest(fields: [.window, .coarseValue], schema: schema, modeled: true)
        let report = try await ReportBuilder.run(request, on: reader)
        let high = { (window: String) in report.rows.first { $0.keys == [window, "high"] } }
        // High in window 1 is one subscription at 9.99; in window 2 a renewal.
        let one = try #require(high("1"))
        #expect(one.events == ["subscribe": one.postbacks])
        #expect(abs(one.revenueLow - 9.99 * Double(one.postbacks)) < 1e-6)
        let two = try #require(high("2"))
        #expect(two.events == ["renewal": two.postbacks])
        // Rows are not split by the schema's own dimensions: one per window and coarse value.
        #expect(Set(report.rows.map(\.keys)).count == report.rows.count)
        // Modeled: base and scale per row, from the row's own counted columns.
        for row in report.rows {
            let cells = report.cells(row)
            let base = max(0, row.nullValues - row.nonWinning), valued = row.postbacks - row.nullValues
            #expect(cells[report.header.firstIndex(of: "modeled_postbacks")!] == String(base))
            if valued > 0 {
                let modeled = Double(cells[report.header.firstIndex(of: "modeled_revenue_low")!])!
                #expect(abs(modeled - row.revenueLow * Double(base) / Double(valued)) < 0.006)
            }
        }
    }
}
