import Foundation
import SKANCore

/// The two tables of the campaign map as every engine stores them: one description of the columns, the order the
/// rows are written and read in, and the conversion between an entry and its cells, so that the engines differ only
/// in their SQL dialect.
public enum CampaignMapTable {
    /// The entries' table.
    public static let name = "campaign_map"
    /// The imports' table.
    public static let imports = "campaign_map_imports"

    /// The entries' columns after the id, in the order ``cells(_:)`` gives them: the CSV's columns, the line an
    /// entry came from, and the import that wrote it.
    public static let columns = ["ad_network_id", "source_identifier", "campaign_id", "valid_from", "valid_to",
                                 "campaign", "ad_set", "creative", "country", "origin"]

    /// The columns of the imports' table after the id.
    public static let importColumns = ["imported_at", "source", "networks", "row_count"]

    /// An entry's cells, in ``columns`` order; `nil` for an absent value. The campaign id is text here (the engines
    /// store it as an integer).
    public static func cells(_ entry: CampaignMap.Entry) -> [String?] {
        var sourceIdentifier: String?
        var campaignID: String?
        switch entry.number {
        case .sourceIdentifier(let digits): sourceIdentifier = digits
        case .campaignID(let id): campaignID = String(id)
        }
        return [entry.network, sourceIdentifier, campaignID, entry.validFrom, entry.validTo, entry.names.campaign,
                entry.names.adSet, entry.names.creative, entry.names.country, entry.origin]
    }

    /// The entry of a row read back in ``columns`` order, or `nil` for a row no import could have written (neither
    /// or both numbers).
    public static func entry(_ cells: [String?]) -> CampaignMap.Entry? {
        guard cells.count == columns.count, let network = cells[0], let campaign = cells[5] else { return nil }
        let number: CampaignMap.Number
        switch (cells[1], cells[2].flatMap { Int($0) }) {
        case (let digits?, nil): number = .sourceIdentifier(digits)
        case (nil, let id?): number = .campaignID(id)
        default: return nil
        }
        return CampaignMap.Entry(network: network, number: number, validFrom: cells[3], validTo: cells[4],
                                 names: CampaignMap.Names(campaign: campaign, adSet: cells[6], creative: cells[7],
                                                          country: cells[8]),
                                 origin: cells[9] ?? "")
    }

    /// Entries in the order every engine lists them: by network, then campaign ids before source identifiers, then
    /// the period (an open start first), then as imported. Sorted in Swift, not SQL, so that no collation of a
    /// server changes the order (the map is a few thousand rows at most).
    public static func sorted(_ entries: [CampaignMap.Entry]) -> [CampaignMap.Entry] {
        func key(_ entry: CampaignMap.Entry) -> (String, Int, String, String) {
            switch entry.number {
            case .campaignID(let id): (entry.network, id, "", entry.validFrom ?? "")
            case .sourceIdentifier(let digits): (entry.network, Int.max, digits, entry.validFrom ?? "")
            }
        }
        return entries.enumerated().sorted { a, b in
            let (x, y) = (key(a.element), key(b.element))
            return x != y ? x < y : a.offset < b.offset
        }.map(\.element)
    }
}
