import Foundation
import SKANReports
import SKANStore

/// Builds a page's panels from the store's read side: every number comes from the same report request that
/// `skan report` makes for the panel's fields and the page's view, so the page and the CSV agree by construction.
struct PanelBuilder {
    let reader: any PostbackReader
    let view: DashboardView
    let schema: ConversionSchema?
    /// The store's networks and campaigns: what the view's campaign stands for.
    var known = KnownValues.empty
    /// The campaign map's names for the campaigns the page shows.
    var names = CampaignLabels.none

    /// The stored identifiers the view's campaign stands for (5239, 239 and 39 for campaign 5239), the view's own
    /// first; empty without a campaign filter.
    var campaignMembers: [String] {
        guard let campaign = view.campaign else { return [] }
        return known.campaigns.campaign(campaign)?.members ?? [campaign]
    }

    /// Runs the report for `fields` in this view. A campaign of several identifiers is one report per identifier
    /// (each a filter the rollups' campaign index answers), summed by key. `modeled` adds the `modeled_` columns
    /// (with a schema), computed from each summed row as `skan report --modeled` computes them from its rows.
    func report(_ fields: [ReportField], schema: ConversionSchema? = nil, modeled: Bool = false) async throws -> Report {
        let members = campaignMembers
        let request = try view.request(fields: fields, schema: schema, modeled: modeled)
        guard members.count > 1 else { return try await ReportBuilder.run(request, on: reader) }
        var rows: [[String?]: ReportRow] = [:]
        for member in members {
            let part = try view.request(fields: fields, schema: schema, modeled: modeled, campaign: member)
            for row in try await ReportBuilder.run(part, on: reader).rows {
                rows[row.keys, default: ReportRow(keys: row.keys)].add(row)
            }
        }
        return Report(request: request, rows: rows.values.sorted { Self.keyOrder($0.keys, $1.keys) },
                      eventNames: request.schema?.eventNames ?? [])
    }

    /// Streams the report for `fields` in this view, one row at a time, and returns its request; a campaign of
    /// several identifiers is run as ``report(_:schema:)`` runs it (each part small) and handed over row by row.
    func stream(_ fields: [ReportField], each: (ReportRow) throws -> Void) async throws -> ReportRequest {
        let request = try view.request(fields: fields, schema: nil)
        if campaignMembers.count > 1 {
            for row in try await report(fields).rows { try each(row) }
        } else {
            try await ReportBuilder.stream(request, on: reader, each: each)
        }
        return request
    }

    /// Keys in the engine's order: an absent value first, numbers as numbers.
    static func keyOrder(_ a: [String?], _ b: [String?]) -> Bool {
        for (x, y) in zip(a, b) where x != y {
            guard let x else { return true }
            guard let y else { return false }
            return CampaignHierarchy.numericOrder(x, y)
        }
        return false
    }

    /// A panel around a report, with its CSV link and command; `empty` is the sentence shown instead of the chart and
    /// the table when the report has no rows (``emptyView`` by default), `table` the table when not the report's own.
    func panel(_ id: String, _ title: String, note: String, report: Report, chart: ChartSpec?,
               table: PanelTable? = nil, empty: String? = nil) -> Panel {
        let fields = report.request.fields
        var query = view.queryItems
        if !fields.isEmpty { query.insert(("by", fields.map(\.rawValue).joined(separator: ",")), at: 0) }
        if report.request.schema != nil { query.append(("schema", "1")) }
        if report.request.modeled { query.append(("modeled", "1")) }
        let command = view.reportCommand(fields: fields, campaigns: campaignMembers)
        return Panel(id: id, title: title, note: note, chartJSON: report.rows.isEmpty ? nil : chart?.json,
                     table: table ?? PanelTable(report), empty: report.rows.isEmpty ? (empty ?? emptyView) : nil,
                     csvLink: "/report.csv" + URLQuery.encode(query),
                     command: command + (report.request.schema != nil ? " --schema FILE" : "")
                        + (report.request.modeled ? " --modeled" : ""))
    }

    /// What a panel says when the view holds no postbacks: why, in the view's own terms.
    var emptyView: String {
        var limits: [String] = []
        if let network = view.network { limits.append("from \(network)") }
        if let campaign = view.campaign {
            limits.append(known.campaigns.campaign(campaign) == nil ? "of campaign \(campaign), which the store does not hold"
                                                                     : "of campaign \(campaign)")
        }
        if let window = view.window { limits.append("in window \(window)") }
        if view.from != nil || view.to != nil { limits.append("between \(view.from ?? "the first day") and \(view.to ?? "the last")") }
        guard !limits.isEmpty else {
            return "No postbacks stored yet: run skan demo, or point skan serve's devices or skan ingest at this database."
        }
        return "No postbacks " + limits.joined(separator: ", ") + ": widen the filters above."
    }

    /// The totals of the view: one row, or zeros when nothing matches.
    func totals() async throws -> ReportRow {
        try await report([]).rows.first ?? ReportRow(keys: [])
    }

    // MARK: - Charts from reports

    /// Categories from the first field, one series per value of the second, summing `value`.
    static func matrix(_ report: Report, value: (ReportRow) -> Double, allCategories: [String]? = nil,
                       seriesName: (String?) -> String = { $0 ?? "(none)" }) -> (labels: [String], series: [(String, [Double])]) {
        var labels = allCategories ?? []
        var seen = Set(labels)
        var seriesOrder: [String] = []
        var cells: [String: [String: Double]] = [:]
        for row in report.rows {
            let category = row.keys[0] ?? "(none)"
            let name = seriesName(row.keys.count > 1 ? row.keys[1] : nil)
            if seen.insert(category).inserted { labels.append(category) }
            if cells[name] == nil { seriesOrder.append(name) }
            cells[name, default: [:]][category, default: 0] += value(row)
        }
        return (labels, seriesOrder.map { name in (name, labels.map { cells[name]?[$0] ?? 0 }) })
    }

    /// Every day from the report's first day (its first field) to its last, for a chart by day: days then stand
    /// evenly apart, and a day when nothing arrived is a zero rather than missing from the axis.
    static func everyDay(_ report: Report) -> [String] {
        everyDay(report.rows.map { $0.keys[0] ?? "(none)" })
    }

    /// The most days a chart by day is filled to: ten years of bars; a longer span keeps the report's own days.
    static let longestDaySpan = 3_660

    /// Every `YYYY-MM-DD` day from the earliest of `labels` to the latest; `labels` once each, in order, when one of
    /// them is not such a day or the span is over ``longestDaySpan``.
    static func everyDay(_ labels: [String]) -> [String] {
        var seen = Set<String>()
        let distinct = labels.filter { seen.insert($0).inserted }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        func date(_ text: String) -> Date? {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard text.utf8.count == 10, parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]),
                  let day = Int(parts[2]),
                  let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
                  Self.dayText(date, calendar) == text else { return nil }
            return date
        }
        guard let earliest = distinct.min(), let latest = distinct.max(), let start = date(earliest), let end = date(latest),
              distinct.allSatisfy({ date($0) != nil }) else { return distinct }
        let span = Int((end.timeIntervalSince(start) / 86_400).rounded())
        guard span < longestDaySpan else { return distinct }
        // UTC has no daylight saving: every day is 86,400 seconds.
        return (0...span).map { dayText(start.addingTimeInterval(Double($0) * 86_400), calendar) }
    }

    private static func dayText(_ date: Date, _ calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(parts.year ?? 0).leftPadded(to: 4) + "-" + String(parts.month ?? 0).leftPadded(to: 2) + "-"
            + String(parts.day ?? 0).leftPadded(to: 2)
    }

    /// The report with the values of its second field past the `keep` largest (by `weight` summed over the report,
    /// then by name) folded into one row per value of the first field, keyed `other (N)`; and the kept values, largest
    /// first. Why: a chart stacked by thousands of source identifiers is neither readable nor small (3,870 series made
    /// a 24 MB page over the benchmark's store); the CSV link still has every one.
    static func keepingTop(_ keep: Int, of report: Report, weight: (ReportRow) -> Int) -> (report: Report, kept: [String]) {
        var totals: [String: Int] = [:]
        for row in report.rows { totals[row.keys[1] ?? "(none)", default: 0] += weight(row) }
        let ranked = totals.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
        guard ranked.count > keep else { return (report, ranked) }
        let kept = Array(ranked.prefix(keep))
        let isKept = Set(kept)
        let other = "other (\(ranked.count - keep))"
        var rows: [ReportRow] = []
        var folded: ReportRow?
        for row in report.rows {
            if folded.map({ $0.keys[0] != row.keys[0] }) == true {
                rows.append(folded!)
                folded = nil
            }
            if isKept.contains(row.keys[1] ?? "(none)") {
                rows.append(row)
            } else {
                if folded == nil { folded = ReportRow(keys: [row.keys[0], other]) }
                folded!.add(row)
            }
        }
        if let folded { rows.append(folded) }
        return (Report(request: report.request, rows: rows, eventNames: report.eventNames), kept + [other])
    }

    /// One series over the first field's categories.
    static func series(_ report: Report, _ name: String, value: (ReportRow) -> Double) -> (labels: [String], values: [Double]) {
        (report.rows.map { $0.keys[0] ?? "(none)" }, report.rows.map(value))
    }
}

/// `?a=b&c=d`, percent-encoded, for the links that keep a view.
enum URLQuery {
    static func encode(_ items: [(name: String, value: String)]) -> String {
        guard !items.isEmpty else { return "" }
        return "?" + items.map { escape($0.name) + "=" + escape($0.value) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(byte)))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
