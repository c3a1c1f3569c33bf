import Foundation
import SKANStore

/// A dimension a report can group by (`skan report --by ad-network,day`).
public enum ReportField: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case adNetwork = "ad-network"
    case app
    /// The campaign id (≤3.0) or the source identifier (4.0), as sent.
    case campaign
    /// The campaign's name, from `--campaigns` (``CampaignMap``); `(unmapped N)` for a number it does not name.
    case campaignName = "campaign-name"
    /// The ad set's name, from `--campaigns`; empty where the digits that survived do not tell it.
    case adSet = "ad-set"
    /// The creative's name, from `--campaigns`; empty where the digits that survived do not tell it.
    case creative
    /// The source app's App Store id, or the web source domain.
    case source
    case version
    case fidelity
    case didWin = "did-win"
    case redownload
    /// The 4.0 postback window (`postback-sequence-index`); empty before 4.0.
    case window
    /// How many digits of the source identifier survived the privacy tier (2, 3 or 4); empty before 4.0.
    case tier
    case conversionValue = "conversion-value"
    case coarseValue = "coarse-value"
    /// The arrival day, or the estimated install day with `--date install`.
    case day
    /// `skadnetwork` or `adattributionkit`.
    case framework
    /// `download`, `redownload` or `re-engagement`.
    case conversionType = "conversion-type"
    /// `view` or `click` (SKAdNetwork's fidelity type, AdAttributionKit's interaction type).
    case interaction
    /// The country code (sent at the top privacy tier only).
    case country
    /// AdAttributionKit's marketplace.
    case marketplace

    /// Reads a comma-separated `--by` list, naming an unknown field and the ones that exist.
    public static func list(_ text: String) throws(ReportError) -> [ReportField] {
        var fields: [ReportField] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces)
            guard let field = ReportField(rawValue: name) else {
                throw ReportError(.unknownField, "--by: unknown field \"\(name)\"; fields are \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if !fields.contains(field) { fields.append(field) }
        }
        return fields
    }

    /// The CSV header of the column.
    public var column: String {
        switch self {
        case .adNetwork: "ad_network_id"
        case .app: "app_id"
        case .campaign: "campaign"
        case .campaignName: "campaign_name"
        case .adSet: "ad_set"
        case .creative: "creative"
        case .source: "source"
        case .version: "version"
        case .fidelity: "fidelity_type"
        case .didWin: "did_win"
        case .redownload: "redownload"
        case .window: "postback_window"
        case .tier: "source_identifier_digits"
        case .conversionValue: "conversion_value"
        case .coarseValue: "coarse_value"
        case .day: "day"
        case .framework: "framework"
        case .conversionType: "conversion_type"
        case .interaction: "interaction"
        case .country: "country_code"
        case .marketplace: "marketplace"
        }
    }

    /// Whether the field is a name from a campaign map rather than a value the store groups by.
    public var isCampaignName: Bool { dimension == nil }

    /// The store's dimension this field groups by; `nil` for the names of a campaign map, which the report finds
    /// from the network, the number and the day (``CampaignNaming``).
    var dimension: AggregateQuery.Dimension? {
        switch self {
        case .campaignName, .adSet, .creative: nil
        case .adNetwork: .network
        case .app: .app
        case .campaign: .campaign
        case .source: .source
        case .version: .version
        case .fidelity: .fidelity
        case .didWin: .didWin
        case .redownload: .redownload
        case .window: .window
        case .tier: .tier
        case .conversionValue: .conversionValue
        case .coarseValue: .coarseValue
        case .day: .day
        case .framework: .framework
        case .conversionType: .conversionType
        case .interaction: .interaction
        case .country: .country
        case .marketplace: .marketplace
        }
    }

    public var description: String { rawValue }
}
