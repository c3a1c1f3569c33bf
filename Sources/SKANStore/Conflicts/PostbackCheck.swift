import SKANCore

/// A consistency rule on one stored postback: something Apple's documentation says does not happen, in a postback
/// whose signature still holds because the fields concerned are unsigned or outside the version's layout. Such a
/// postback is stored and counted as any other; the rule only counts it, so that a report can say how many there are
/// (`skan report --integrity`). Each rule is written twice: as a condition on a `postbacks` row in SQL every engine
/// runs, and in Swift for the memory engine, the reference the SQL is tested against.
public enum PostbackCheck: String, Sendable, Hashable, CaseIterable {
    /// A fine value after the first window: SKAdNetwork 4.0 and AdAttributionKit send fine values only in
    /// `postback-sequence-index` 0 (days 0–2); windows 1 and 2 (days 3–7, 8–35) carry a coarse value at most (spec §6.1, §3.3).
    case fineAfterFirstWindow = "fine_after_first_window"
    /// A fine and a coarse value in one postback: never sent together (spec §3.1).
    case fineAndCoarse = "fine_and_coarse"
    /// A SKAdNetwork key its version does not define (``SKANVersion/definedFields``): a `source-identifier` in a
    /// 3.0 postback, a `campaign-id` in a 4.0 one, a `did-win` before 3.0 ...
    case fieldNotInVersion = "field_not_in_version"
    /// An AdAttributionKit postback signed with one of Apple's development keys (`apple-development-identifier/N`),
    /// which a collector trusts only with `--aak-development`. SKAdNetwork's test postbacks cannot be told apart:
    /// Apple does not document which key signs them (spec §9).
    case developmentKey = "development_key"

    /// The prefix of the kids of Apple's AdAttributionKit development keys, as the store keeps them in `layout`.
    public static let developmentKidPrefix = "apple-development-identifier/"

    /// The columns a SKAdNetwork key is stored in, for the keys a version may lack.
    static let columnsOfFields: [(field: PostbackField, column: PostbackColumn)] = [
        (.campaignID, PostbackTable.campaignID), (.sourceIdentifier, PostbackTable.sourceIdentifier),
        (.redownload, PostbackTable.redownload), (.sourceAppID, PostbackTable.sourceAppID),
        (.sourceDomain, PostbackTable.sourceDomain), (.fidelityType, PostbackTable.fidelityType),
        (.didWin, PostbackTable.didWin), (.postbackSequenceIndex, PostbackTable.postbackSequenceIndex),
        (.conversionValue, PostbackTable.conversionValue), (.coarseConversionValue, PostbackTable.coarseConversionValue),
    ]

    /// The columns a postback of `version` must not have a value in.
    static func foreignColumns(_ version: SKANVersion) -> [PostbackColumn] {
        columnsOfFields.filter { !version.definedFields.contains($0.field) }.map(\.column)
    }

    /// The rule as a condition on a `postbacks` row, in SQL that SQLite and PostgreSQL read alike.
    public var condition: String {
        switch self {
        case .fineAfterFirstWindow:
            return "conversion_value IS NOT NULL AND COALESCE(postback_sequence_index, 0) > 0"
        case .fineAndCoarse:
            return "conversion_value IS NOT NULL AND coarse_conversion_value IS NOT NULL"
        case .fieldNotInVersion:
            let versions = SKANVersion.allCases.compactMap { version -> String? in
                let foreign = Self.foreignColumns(version)
                guard !foreign.isEmpty else { return nil }
                return "(version = '\(version.rawValue)' AND (\(foreign.map { "\($0.name) IS NOT NULL" }.joined(separator: " OR "))))"
            }
            return "framework = '\(Framework.skadnetwork.rawValue)' AND (\(versions.joined(separator: " OR ")))"
        case .developmentKey:
            let prefix = Self.developmentKidPrefix
            return "framework = '\(Framework.adAttributionKit.rawValue)' AND substr(layout, 1, \(prefix.utf8.count)) = '\(prefix)'"
        }
    }

    /// Whether the rule holds for a row whose columns `value` reads: ``condition`` in Swift.
    public func holds(_ value: (PostbackColumn) -> ColumnValue) -> Bool {
        func present(_ column: PostbackColumn) -> Bool { value(column) != .null }
        let framework = value(PostbackTable.framework).text
        switch self {
        case .fineAfterFirstWindow:
            return present(PostbackTable.conversionValue) && (value(PostbackTable.postbackSequenceIndex).integer ?? 0) > 0
        case .fineAndCoarse:
            return present(PostbackTable.conversionValue) && present(PostbackTable.coarseConversionValue)
        case .fieldNotInVersion:
            guard framework == Framework.skadnetwork.rawValue,
                  let version = value(PostbackTable.version).text.flatMap(SKANVersion.init(rawValue:)) else { return false }
            return Self.foreignColumns(version).contains(where: present)
        case .developmentKey:
            return framework == Framework.adAttributionKit.rawValue
                && (value(PostbackTable.layout).text ?? "").hasPrefix(Self.developmentKidPrefix)
        }
    }
}

/// What ``PostbackCheck`` counts over the stored postbacks of one ad network, with the winning postbacks by the side
/// they first arrived from (``CopySide``): what reconciliation compares the repeats with.
public struct PostbackChecks: Sendable, Hashable {
    /// The ad network.
    public var network: String
    /// Postbacks that break each rule (absent: none).
    public var rules: [PostbackCheck: Int]
    /// Winning postbacks (`did-win` true or absent) stored first from each side.
    public var winningBySide: [CopySide: Int]

    /// Makes counts.
    public init(network: String, rules: [PostbackCheck: Int] = [:], winningBySide: [CopySide: Int] = [:]) {
        self.network = network
        self.rules = rules
        self.winningBySide = winningBySide
    }

    /// The SQL of a winning postback (did-win true, or absent before 3.0).
    public static let winning = "(did_win IS NULL OR did_win)"

    /// The SQL of a postback that arrived as a developer copy (``CopySide/init(endpoint:)``).
    public static let developerCopy = "(endpoint LIKE '%/report-attribution/' OR endpoint LIKE '%/report-attribution'"
        + " OR endpoint LIKE '%\(CopySide.ingestedDeveloperSuffix)')"

    /// The statement every SQL engine runs: per ad network, each rule's count in ``PostbackCheck/allCases`` order, then
    /// the winning developer copies and the winning network postbacks, over the arrival days `from...to` (either may
    /// be absent). `placeholder(n)` writes the engine's n-th parameter (1-based).
    public static func statement(from: String?, to: String?, placeholder: (Int) -> String) -> (sql: String, arguments: [String]) {
        var sums = PostbackCheck.allCases.map { PostbackRollup.one($0.condition) }
        sums.append(PostbackRollup.one("\(winning) AND \(developerCopy)"))
        sums.append(PostbackRollup.one("\(winning) AND NOT \(developerCopy)"))
        var filters: [String] = []
        var arguments: [String] = []
        let day = "substr(\(PostbackTable.receivedAt.name), 1, 10)"
        if let from { arguments.append(from); filters.append("\(day) >= \(placeholder(arguments.count))") }
        if let to { arguments.append(to); filters.append("\(day) <= \(placeholder(arguments.count))") }
        let sql = """
            SELECT \(PostbackTable.adNetworkID.name), \(sums.map { "sum(\($0))" }.joined(separator: ", "))
            FROM \(PostbackTable.name)\(filters.isEmpty ? "" : " WHERE " + filters.joined(separator: " AND "))
            GROUP BY \(PostbackTable.adNetworkID.name)
            """
        return (sql, arguments)
    }

    /// A row of ``statement(from:to:placeholder:)``: the network and its counts in the statement's order.
    public init(network: String, counts: [Int]) {
        var rules: [PostbackCheck: Int] = [:]
        for (rule, count) in zip(PostbackCheck.allCases, counts) where count > 0 { rules[rule] = count }
        let sides = counts.dropFirst(PostbackCheck.allCases.count)
        var winning: [CopySide: Int] = [:]
        if let developer = sides.first, developer > 0 { winning[.developer] = developer }
        if sides.count > 1, sides[sides.startIndex + 1] > 0 { winning[.network] = sides[sides.startIndex + 1] }
        self.init(network: network, rules: rules, winningBySide: winning)
    }
}
