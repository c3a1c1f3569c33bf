import CSV
import Foundation
import SKANCore

extension ConversionSchema {
    /// The column names, in the order SKANKit writes them:
    ///
    /// ```
    /// conversion_value,coarse_value,event_name,event_count,revenue_low,revenue_high
    /// 0,,install,1,0,0
    /// 12,,purchase,1,0.99,4.99
    /// ,medium,purchase,1,0.99,9.99
    /// ```
    ///
    /// A row has either `conversion_value` (0–63) or `coarse_value` (low/medium/high). A value may have several
    /// rows (one per event it stands for).
    public static let columns = ["conversion_value", "coarse_value", "event_name", "event_count", "revenue_low", "revenue_high"]

    /// Columns a file may add to narrow a row's table (``Scope``): an app, a postback window, a first install day.
    /// Empty cells, or no such column, mean every app, every window, from the start.
    public static let scopeColumns = ["app_id", "postback_window", "valid_from"]

    /// Reads the schema file at `path`: Google Ads' JSON when it ends in `.json` or begins with `{`, the CSV
    /// otherwise. A file that cannot be read is an error saying why (none there, a folder, not readable, not UTF-8
    /// text), under the name of the `option` that gave the path.
    public static func load(path: String, option: String = "--schema") throws(ReportError) -> ConversionSchema {
        func fail(_ reason: String) -> ReportError {
            ReportError(.invalidSchema, "\(option): \(path) \(reason); expected a conversion value schema CSV with the header "
                        + columns.joined(separator: ","))
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw fail("does not exist") }
        guard !isFolder.boolValue else { throw fail("is a folder") }
        guard let data = FileManager.default.contents(atPath: path) else { throw fail("cannot be read (permissions?)") }
        guard let text = String(data: data, encoding: .utf8) else { throw fail("is not UTF-8 text") }
        if path.lowercased().hasSuffix(".json") || text.drop(while: \.isWhitespace).first == "{" {
            return try ConversionSchema(googleAds: data, source: path)
        }
        return try ConversionSchema(csv: text, source: path)
    }

    /// Reads a schema from CSV text. `source` names the file in errors.
    public init(csv text: String, source: String) throws(ReportError) {
        self.init()
        func fail(_ reason: String) -> ReportError { ReportError(.invalidSchema, "\(source): \(reason)") }
        let reader: CSVReader
        do {
            reader = try CSVReader(string: text, hasHeaderRow: true, trimFields: true)
        } catch {
            throw fail("not CSV with a header row (\(error))")
        }
        let header = reader.headerRow ?? []
        for required in ["event_name", "event_count", "revenue_low", "revenue_high"] where !header.contains(required) {
            throw fail("the header has no \(required) column; expected \(Self.columns.joined(separator: ","))")
        }
        guard header.contains("conversion_value") || header.contains("coarse_value") else {
            throw fail("the header needs a conversion_value or a coarse_value column")
        }
        if let unknown = header.first(where: { !Self.columns.contains($0) && !Self.scopeColumns.contains($0) }) {
            throw fail("unknown column \"\(unknown)\"; expected \(Self.columns.joined(separator: ",")), and optionally "
                       + Self.scopeColumns.joined(separator: ","))
        }
        var line = 1
        var rows = 0
        while let row = reader.next() {
            line += 1
            guard row.count == header.count else {
                throw fail("row \(line) has \(row.count) cells, the header \(header.count) (\(header.joined(separator: ",")))")
            }
            let cells = Dictionary(zip(header, row), uniquingKeysWith: { first, _ in first })
            func cell(_ name: String) -> String { cells[name] ?? "" }
            func number(_ name: String) throws(ReportError) -> Double {
                guard let value = Double(cell(name)), value.isFinite, value >= 0 else {
                    throw fail("row \(line): \(name) must be a non-negative number, got \"\(cell(name))\"")
                }
                return value
            }
            guard !cell("event_name").isEmpty else { throw fail("row \(line): event_name is empty") }
            guard let count = Int(cell("event_count")), count >= 0 else {
                throw fail("row \(line): event_count must be a non-negative integer, got \"\(cell("event_count"))\"")
            }
            let event = Event(name: cell("event_name"), count: count,
                              revenueLow: try number("revenue_low"), revenueHigh: try number("revenue_high"))
            guard event.revenueLow <= event.revenueHigh else {
                throw fail("row \(line): revenue_low \(event.revenueLow) is above revenue_high \(event.revenueHigh)")
            }
            var scope = Scope(app: cell("app_id").isEmpty ? nil : cell("app_id"))
            if !cell("postback_window").isEmpty {
                guard let window = Int(cell("postback_window")), (0...2).contains(window) else {
                    throw fail("row \(line): postback_window must be 0, 1 or 2, got \"\(cell("postback_window"))\"")
                }
                scope.window = window
            }
            if !cell("valid_from").isEmpty {
                do {
                    scope.validFrom = try ReportRequest.checkDate(cell("valid_from"), option: "valid_from")
                } catch {
                    throw fail("row \(line): valid_from must be a day YYYY-MM-DD, got \"\(cell("valid_from"))\"")
                }
            }
            switch (cell("conversion_value"), cell("coarse_value")) {
            case let (fineText, "") where !fineText.isEmpty:
                guard let value = Int(fineText), (0...63).contains(value) else {
                    throw fail("row \(line): conversion_value must be an integer 0...63, got \"\(fineText)\"")
                }
                add(event, fine: value, in: scope)
            case let ("", coarseText) where !coarseText.isEmpty:
                guard let value = CoarseValue(rawValue: coarseText) else {
                    throw fail("row \(line): coarse_value must be low, medium or high, got \"\(coarseText)\"")
                }
                add(event, coarse: value, in: scope)
            default:
                throw fail("row \(line): give exactly one of conversion_value and coarse_value")
            }
            rows += 1
        }
        if let error = reader.error, rows == 0 {
            throw fail("cannot read rows (\(error))")
        }
    }
}
