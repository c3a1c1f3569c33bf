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
    /// Adds the `modeled_` columns: an estimate of what the null-valued winning postbacks stand for (needs a
    /// schema; see ``Report``).
    public var modeled: Bool

    /// Makes a request, checking the dates, and that a campaign map is given where a field or filter names one.
    public init(fields: [ReportField], from: String? = nil, to: String? = nil, day: DayBasis = .arrival,
                filters: [ReportFilter] = [], schema: ConversionSchema? = nil,
                campaigns: CampaignMap? = nil, modeled: Bool = false) throws(ReportError) {
        self.fields = fields
        self.filters = filters
        self.campaigns = campaigns
        self.modeled = modeled
        if modeled && schema == nil {
            throw ReportError(.invalidSchema, "--modeled needs --schema FILE: the modeled columns are decoded events "
                              + "and revenue (docs/guides/schemas.md)")
        }
        if let schema, schema.isDated, day != .install {
            throw ReportError(.invalidSchema, "--schema has versions valid from different days, and the version in "
                              + "force on each postback's install day decodes it: add --date install (days are then "
                              + "estimated install days)")
        }
        if campaigns == nil,
           let named = fields.first(where: \.isCampaignName) ?? filters.map(\.field).first(where: \.isCampaignName) {
            throw ReportError(.unknownField, "\(named.rawValue) needs a campaign map: --campaigns FILE.csv, or one "
                              + "stored with skan campaigns import (docs/guides/campaign-names.md)")
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
    var namesCampaigns: Bool { Self.namesCampaigns(fields: fields, filters: filters) }

    /// Whether `fields` or `filters` read a campaign map's names: whether a report of them needs a map.
    public static func namesCampaigns(fields: [ReportField], filters: [ReportFilter]) -> Bool {
        fields.contains(where: \.isCampaignName) || filters.contains(where: \.field.isCampaignName)
    }

    /// What the store groups by: the fields' own dimensions and, where names are asked for, what finds them (the
    /// network, the number, how many digits it has and the day), each once.
    var storeDimensions: [AggregateQuery.Dimension] {
        var dimensions = fields.compactMap(\.dimension)
        if namesCampaigns {
            for needed in CampaignNaming.dimensions where !dimensions.contains(needed) { dimensions.append(needed) }
        }
        for needed in schemaDimensions where !dimensions.contains(needed) { dimensions.append(needed) }
        return dimensions
    }

    /// What decoding through the schema needs of each group beyond the fields: its app for tables of one app, its
    /// window for tables of one window, its (install) day for dated versions. They come after the fields, so the
    /// groups of one row stay adjacent in the store's key order.
    var schemaDimensions: [AggregateQuery.Dimension] {
        guard let schema else { return [] }
        return (schema.isPerApp ? [.app] : []) + (schema.isPerWindow ? [.window] : []) + (schema.isDated ? [.day] : [])
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
