import Foundation
import SKANStore

/// What `skan report` was asked for.
public struct ReportRequest: Sendable, Hashable {
    /// Grouping dimensions, in column order; empty for one total row.
    public var fields: [ReportField]
    /// First day included (`YYYY-MM-DD`, UTC), on the chosen ``day`` basis.
    public var from: String?
    /// Last day included.
    public var to: String?
    /// Whether days are arrival days or estimated install days.
    public var day: DayBasis
    /// Conditions every counted postback meets.
    public var filters: [ReportFilter]
    /// Decodes values into events and revenue when given.
    public var schema: ConversionSchema?

    /// Makes a request, checking the dates.
    public init(fields: [ReportField], from: String? = nil, to: String? = nil, day: DayBasis = .arrival,
                filters: [ReportFilter] = [], schema: ConversionSchema? = nil) throws(ReportError) {
        self.fields = fields
        self.filters = filters
        self.from = try from.map { date throws(ReportError) in try Self.checkDate(date, option: "--from") }
        self.to = try to.map { date throws(ReportError) in try Self.checkDate(date, option: "--to") }
        self.day = day
        self.schema = schema
        if let from = self.from, let to = self.to, from > to {
            throw ReportError(.invalidDate, "--from \(from) is after --to \(to)")
        }
    }

    /// The store query that counts this report's groups; with a schema, each group is split by value so that
    /// the values can be decoded.
    public var aggregate: AggregateQuery {
        AggregateQuery(dimensions: fields.map(\.dimension), day: day, from: from, to: to,
                       filters: filters.map(\.condition), splitsByValue: schema != nil)
    }

    /// Accepts a real calendar day written `YYYY-MM-DD`.
    static func checkDate(_ text: String, option: String) throws(ReportError) -> String {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), day >= 1 else {
            throw ReportError(.invalidDate, "\(option) must be a date YYYY-MM-DD, got \"\(text)\"")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month)
        guard let monthStart = calendar.date(from: components),
              let days = calendar.range(of: .day, in: .month, for: monthStart), days.contains(day) else {
            throw ReportError(.invalidDate, "\(option) must be a real day, got \"\(text)\"")
        }
        return text
    }
}
