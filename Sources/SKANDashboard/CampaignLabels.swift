import SKANCore
import SKANStore

/// The names a campaign map gives the campaigns a page shows, beside their numbers: looked up once per page, for the
/// campaigns the page shows (its pickers, its chart's legend, its campaigns table), never per stored row.
///
/// The dashboard's campaigns are stored identifiers without their network (``CampaignHierarchy``), so a name is
/// looked up under every network the map names, or only the view's network when it has one; on the view's last
/// day when it has one (a number's meaning is dated), else in whichever period names it. Networks that call one
/// number by different names show both.
struct CampaignLabels: Sendable {
    private let index: CampaignNameIndex?
    private let networks: [String]
    private let day: String?

    /// No names: a store without a campaign map.
    static let none = CampaignLabels(index: nil, network: nil, day: nil)

    /// The names `map` gives, for a view of `network` (or all) ending on `day` (or open).
    init(map: CampaignMap?, network: String?, day: String?) {
        self.init(index: map.map(CampaignNameIndex.init), network: network, day: day)
    }

    /// The names `index` gives, for a view of `network` (or all) ending on `day` (or open).
    init(index: CampaignNameIndex?, network: String?, day: String?) {
        self.index = index
        self.day = day
        let mapped = index?.networks ?? []
        networks = network.map { mapped.contains($0) ? [$0] : [] } ?? mapped
    }

    /// Whether there is a map to name anything by.
    var isEmpty: Bool { index == nil || networks.isEmpty }

    /// The campaign name of the stored identifier `id` (a source identifier, or a campaign id before 4.0), or `nil`
    /// when nothing names it.
    func name(_ id: String) -> String? {
        // One set probe for a number no entry names: a store's thousands of picker options cost little.
        guard let index, !networks.isEmpty, index.numbers.contains(id) else { return nil }
        var numbers: [CampaignMap.Number] = []
        if (2...4).contains(id.utf8.count), id.utf8.allSatisfy({ (48...57).contains($0) }) {
            numbers.append(.sourceIdentifier(id))
        }
        if let number = Int(id), (1...100).contains(number), id == String(number) { numbers.append(.campaignID(number)) }
        var names: [String] = []
        for network in networks {
            for number in numbers {
                if let name = index.map.lookup(network: network, number: number, day: day).names?.campaign,
                   !names.contains(name) {
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

/// A campaign map with what ``CampaignLabels`` asks of it first: its networks, and every number any entry may name
/// (each source identifier with the shorter forms a lower tier keeps of it, each campaign id). Built once per
/// import, not per page.
struct CampaignNameIndex: Sendable {
    let map: CampaignMap
    let networks: [String]
    let numbers: Set<String>

    init(_ map: CampaignMap) {
        self.map = map
        networks = Set(map.entries.map(\.network)).sorted()
        var numbers = Set<String>()
        for entry in map.entries {
            switch entry.number {
            case .campaignID(let id): numbers.insert(String(id))
            case .sourceIdentifier(let digits):
                numbers.insert(digits)
                for length in 2..<max(2, digits.count) { numbers.insert(map.digits.keep(length, of: digits)) }
            }
        }
        self.numbers = numbers
    }
}

/// The stored campaign map as the dashboard last read it, with the number of imports recorded then: read again when
/// an import has been recorded since.
actor CampaignMapCache {
    private var cached: (imports: Int, index: CampaignNameIndex?)?

    /// The map `store` holds now, indexed, or `nil` when none was imported.
    func index(from store: any CampaignMapStore) async throws -> CampaignNameIndex? {
        let imports = try await store.imports().count
        if let cached, cached.imports == imports { return cached.index }
        let entries = try await store.entries()
        let index = entries.isEmpty ? nil : CampaignNameIndex(try CampaignMap(entries: entries))
        cached = (imports, index)
        return index
    }
}
