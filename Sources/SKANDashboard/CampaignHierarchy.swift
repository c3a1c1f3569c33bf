/// Campaigns as a campaign manager runs them: a 4.0 source identifier is a hierarchical number of up to four digits,
/// and a postback carries only the digits its privacy tier let through (spec §3.3). Apple's examples (5239 in one
/// postback, 39 in another) keep the trailing digits (spec §11.1, as the simulator does by default), so 5239, 239 and
/// 39 are one campaign seen at three tiers, not three campaigns.
///
/// Built from the identifiers the store holds: each shorter identifier joins the one longer identifier ending in its
/// digits; one that several end in (39 under 5239 and 6139) cannot be told apart and stays a campaign of its own,
/// saying how many it may belong to. Campaign ids before 4.0 (1–100) have no hierarchy and stand alone unless a
/// longer identifier ends in them.
struct CampaignHierarchy: Sendable, Hashable {
    /// One campaign: the longest identifier and the shorter ones it contains that the store holds.
    struct Campaign: Sendable, Hashable {
        /// The campaign's identifier as a filter names it: its longest form.
        let id: String
        /// Every stored identifier counted as this campaign, longest first (`id` itself first).
        let members: [String]
        /// For an identifier that several campaigns end in: how many.
        let sharedBy: Int

        /// What a picker and a table show.
        var label: String {
            if sharedBy > 1 { return "\(id) (last \(id.count) digits of \(sharedBy) campaigns)" }
            guard members.count > 1 else { return id }
            return "\(id) (with \(members.dropFirst().joined(separator: ", ")))"
        }
    }

    /// The campaigns, ordered as numbers (20 before 120 before 3120), a text id after every number.
    let campaigns: [Campaign]
    private let campaignOfMember: [String: String]
    /// Each campaign's place in ``campaigns``.
    private let ranks: [String: Int]

    /// The campaigns of the stored identifiers `ids` (each once or more, any order).
    init(ids: some Sequence<String>) {
        let distinct = Set(ids)
        // The longer identifiers ending in each 2- and 3-digit suffix: one pass, not every pair.
        var longer: [String: [String]] = [:]
        for id in distinct where Self.isHierarchical(id) {
            for digits in 2..<max(2, id.count) { longer[String(id.suffix(digits)), default: []].append(id) }
        }
        var root: [String: String] = [:]
        var shared: [String: Int] = [:]
        // Longest first, so that a shorter identifier finds the campaign its longer ones already joined.
        for id in distinct.sorted(by: { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }) {
            guard Self.isHierarchical(id), id.count < 4 else {
                root[id] = id
                continue
            }
            let owners = Set((longer[id] ?? []).compactMap { root[$0] })
            root[id] = owners.count == 1 ? owners.first! : id
            if owners.count > 1 { shared[id] = owners.count }
        }
        var members: [String: [String]] = [:]
        for (id, owner) in root { members[owner, default: []].append(id) }
        campaigns = members.map { id, ids in
            Campaign(id: id, members: ids.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 },
                     sharedBy: shared[id] ?? 0)
        }.sorted { Self.numericOrder($0.id, $1.id) }
        campaignOfMember = root
        ranks = Dictionary(campaigns.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Where a campaign (its longest form) sorts among ``campaigns``: absent first, as the engines order an absent
    /// value; a campaign the hierarchy does not know after every known one.
    func rank(of campaign: String?) -> Int {
        guard let campaign else { return -1 }
        return ranks[campaign] ?? campaigns.count
    }

    /// The campaign `id` (its longest form), or `nil` when no stored identifier has that form.
    func campaign(_ id: String) -> Campaign? {
        campaigns.first { $0.id == id }
    }

    /// The campaign a stored identifier counts as: itself when the hierarchy does not know it.
    func campaignID(of member: String) -> String {
        campaignOfMember[member] ?? member
    }

    /// A source identifier's digits: one to four ASCII digits.
    static func isHierarchical(_ id: String) -> Bool {
        (1...4).contains(id.utf8.count) && id.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// `a` before `b` as numbers where both are whole numbers (`20` before `120`), numbers before text, text as text;
    /// equal numbers (`07` and `7`) by their text.
    static func numericOrder(_ a: String, _ b: String) -> Bool {
        switch (number(a), number(b)) {
        case let (x?, y?): x != y ? x < y : a < b
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): a < b
        }
    }

    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }
}
