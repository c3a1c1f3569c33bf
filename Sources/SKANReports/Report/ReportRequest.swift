import Foundation
import SKANCore
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
    /// Names campaign numbers: what the `campaign-name`, `ad-set` and `creative` fields read.
    public var campaigns: CampaignMap?

    /// Makes a request, checking the dates, and that a campaign map is given where a field or filter names one.
    public init(fields: [ReportField], from: String? = nil, to: String? = nil, day: DayBasis = .arrival,
                filters: [ReportFilter] = [], schema: ConversionSchema? = nil,
                campaigns: CampaignMap? = nil) throws(ReportError) {
        self.fields = fields
        self.filters = filters
        self.campaigns = campaigns
        if campaigns == nil,
           let named = fields.first(where: \.isCampaignName) ?? filters.map(\.field).first(where: \.isCampaignName) {
            throw ReportError(.unknownField, "\(named.rawValue) needs --campaigns FILE.csv, the names of the network's "
                              + "campaign numbers (docs/guides/campaign-names.md)")
        }
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
        AggregateQuery(dimensions: storeDimensions, day: day, from: from, to: to,
                       filters: filters.compactMap(\.condition), splitsByValue: schema != nil)
    }

    /// Whether a field or a filter reads a campaign map's names.
    var namesCampaigns: Bool {
        fields.contains(where: \.isCampaignName) || filters.contains(where: \.field.isCampaignName)
    }

    /// What the store groups by: the fields' own dimensions and, where names are asked for, what finds them (the
    /// network, the number, how many digits it has and the day), each once.
    var storeDimensions: [AggregateQuery.Dimension] {
        var dimensions = fields.compactMap(\.dimension)
        guard namesCampaigns else { return dimensions }
        for needed in CampaignNaming.dimensions where !dimensions.contains(needed) { dimensions.append(needed) }
        return dimensions
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
