import SKANCore

/// The names a campaign map gives the campaigns a page shows, beside their numbers: found once per page, for the
/// few campaigns the page shows (its pickers, its chart's legend, its campaigns table), never per stored row.
///
/// The dashboard's campaigns are stored identifiers without their network (``CampaignHierarchy``), so a name is
/// looked up under every network the map names, or only the view's network when it has one; on the view's last
/// day when it has one (a number's meaning is dated), else in whichever period names it. Networks that call one
/// number by different names show both.
struct CampaignLabels: Sendable {
    private let map: CampaignMap?
    private let networks: [String]
    private let day: String?

    /// No names: a store without a campaign map.
    static let none = CampaignLabels(map: nil, network: nil, day: nil)

    /// The names `map` gives, for a view of `network` (or all) ending on `day` (or open).
    init(map: CampaignMap?, network: String?, day: String?) {
        self.map = map
        self.day = day
        let mapped = Set(map?.entries.map(\.network) ?? [])
        networks = network.map { mapped.contains($0) ? [$0] : [] } ?? mapped.sorted()
    }

    /// Whether there is a map to name anything by.
    var isEmpty: Bool { map == nil || networks.isEmpty }

    /// The campaign name of the stored identifier `id` (a source identifier, or a campaign id before 4.0), or `nil`
    /// when nothing names it.
    func name(_ id: String) -> String? {
        guard let map, !networks.isEmpty else { return nil }
        var numbers: [CampaignMap.Number] = []
        if (2...4).contains(id.utf8.count), id.utf8.allSatisfy({ (48...57).contains($0) }) {
            numbers.append(.sourceIdentifier(id))
        }
        if let number = Int(id), (1...100).contains(number), id == String(number) { numbers.append(.campaignID(number)) }
        var names: [String] = []
        for network in networks {
            for number in numbers {
                if let name = map.lookup(network: network, number: number, day: day).names?.campaign, !names.contains(name) {
                    names.append(name)
                }
            }
        }
        switch names.count {
        case 0: return nil
        case 1, 2: return names.joined(separator: " / ")
        default: return "\(names[0]) / \(names[1]) / \(names.count - 2) more"
        }
    }

    /// `text` (an identifier, or a label that starts with one) with `id`'s name after the identifier, or `text`
    /// alone when nothing names it: "5239 · Spring sale (with 239, 39)".
    func label(_ id: String, _ text: String) -> String {
        guard let name = name(id) else { return text }
        guard text.hasPrefix(id) else { return "\(text) · \(name)" }
        return "\(id) · \(name)\(text.dropFirst(id.count))"
    }
}
