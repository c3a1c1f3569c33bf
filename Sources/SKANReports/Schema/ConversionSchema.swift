import CSV
import Foundation
import SKANCore

/// What a conversion value means: the events and revenue an app encodes in its fine and coarse values,
/// in the CSV shape measurement platforms export (one row per value and event):
///
/// ```
/// conversion_value,coarse_value,event_name,event_count,revenue_low,revenue_high
/// 0,,install,1,0,0
/// 12,,purchase,1,0.99,4.99
/// ,medium,purchase,1,0.99,9.99
/// ```
///
/// A row has either `conversion_value` (0–63) or `coarse_value` (low/medium/high). A value may have several
/// rows (one per event it stands for). Revenue is a range, because a 6-bit value can only say "between".
public struct ConversionSchema: Sendable, Hashable {
    /// One event a value stands for.
    public struct Event: Sendable, Hashable {
        public var name: String
        public var count: Int
        public var revenueLow: Double
        public var revenueHigh: Double
    }

    /// Events per fine value.
    public private(set) var fine: [Int: [Event]] = [:]
    /// Events per coarse value.
    public private(set) var coarse: [CoarseValue: [Event]] = [:]

    /// Every event name the schema knows, sorted: the report's event columns.
    public var eventNames: [String] {
        Set(fine.values.joined().map(\.name)).union(coarse.values.joined().map(\.name)).sorted()
    }

    /// The column names, in the order SKANKit writes them.
    public static let columns = ["conversion_value", "coarse_value", "event_name", "event_count", "revenue_low", "revenue_high"]

    /// An empty schema.
    public init() {}

    /// The events a postback's value stands for; none for a null value or a value the schema does not list.
    public func events(conversionValue: Int?, coarseValue: CoarseValue?) -> [Event] {
        if let conversionValue { return fine[conversionValue] ?? [] }
        if let coarseValue { return coarse[coarseValue] ?? [] }
        return []
    }

    /// Reads the schema file at `path`; a file that cannot be read is an error saying why (none there, a folder, not
    /// readable, not UTF-8 text), under the name of the `option` that gave the path.
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
        return try ConversionSchema(csv: text, source: path)
    }

    /// Reads a schema from CSV text. `source` names the file in errors.
    public init(csv text: String, source: String) throws(ReportError) {
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
        if let unknown = header.first(where: { !Self.columns.contains($0) }) {
            throw fail("unknown column \"\(unknown)\"; expected \(Self.columns.joined(separator: ","))")
        }
        var line = 1
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
            switch (cell("conversion_value"), cell("coarse_value")) {
            case let (fineText, "") where !fineText.isEmpty:
                guard let value = Int(fineText), (0...63).contains(value) else {
                    throw fail("row \(line): conversion_value must be an integer 0...63, got \"\(fineText)\"")
                }
                fine[value, default: []].append(event)
            case let ("", coarseText) where !coarseText.isEmpty:
                guard let value = CoarseValue(rawValue: coarseText) else {
                    throw fail("row \(line): coarse_value must be low, medium or high, got \"\(coarseText)\"")
                }
                coarse[value, default: []].append(event)
            default:
                throw fail("row \(line): give exactly one of conversion_value and coarse_value")
            }
        }
        if let error = reader.error, fine.isEmpty && coarse.isEmpty {
            throw fail("cannot read rows (\(error))")
        }
    }
}
