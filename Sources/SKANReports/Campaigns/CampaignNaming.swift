import SKANCore
import SKANStore

/// Turns the store's groups into a report's rows where fields name campaigns: each group also carries its network,
/// campaign number, digit count and day (``dimensions``), which find its names in the ``CampaignMap``; groups whose
/// fields then read the same are counted as one row. The rows are kept until the end and come out in key order, so
/// a named report holds one row per output group in memory (campaign names are few), where other reports stream.
struct CampaignNaming {
    /// What a group must carry for its names to be found.
    static let dimensions: [AggregateQuery.Dimension] = [.network, .campaign, .tier, .day]

    private let request: ReportRequest
    private let map: CampaignMap
    private let positions: [AggregateQuery.Dimension: Int]
    private var rows: [[String?]: ReportRow] = [:]

    init(request: ReportRequest, map: CampaignMap) {
        self.request = request
        self.map = map
        positions = Dictionary(request.storeDimensions.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Counts one group (already decoded through the schema, if any) under its named keys, unless a filter on a
    /// name leaves it out.
    mutating func add(_ group: ReportRow) {
        let names = lookup(group.keys)
        func value(_ field: ReportField) -> String? {
            switch field {
            case .campaignName: names.map(\.campaign) ?? unmapped(group.keys)
            case .adSet: names?.adSet
            case .creative: names?.creative
            default: field.dimension.flatMap { positions[$0] }.flatMap { group.keys[$0] }
            }
        }
        for filter in request.filters where filter.field.isCampaignName && value(filter.field) != filter.value {
            return
        }
        let keys = request.fields.map(value)
        var row = rows[keys] ?? ReportRow(keys: keys)
        row.add(group)
        rows[keys] = row
    }

    /// The rows, in key order (an absent key first, as the store orders them).
    func finish() -> [ReportRow] {
        rows.values.sorted { left, right in
            for (a, b) in zip(left.keys, right.keys) where a != b {
                guard let a else { return true }
                guard let b else { return false }
                return a < b
            }
            return false
        }
    }

    private func key(_ dimension: AggregateQuery.Dimension, in keys: [String?]) -> String? {
        positions[dimension].flatMap { keys[$0] }
    }

    /// The names of a group's number: a source identifier when it has a digit count (4.0, AdAttributionKit), a
    /// campaign id otherwise.
    private func lookup(_ keys: [String?]) -> CampaignMap.Names? {
        guard let network = key(.network, in: keys), let number = key(.campaign, in: keys) else { return nil }
        let parsed: CampaignMap.Number
        if key(.tier, in: keys) != nil {
            parsed = .sourceIdentifier(number)
        } else if let id = Int(number) {
            parsed = .campaignID(id)
        } else {
            return nil
        }
        return map.lookup(network: network, number: parsed, day: key(.day, in: keys)).names
    }

    private func unmapped(_ keys: [String?]) -> String {
        "(unmapped \(key(.campaign, in: keys) ?? "none"))"
    }
}
