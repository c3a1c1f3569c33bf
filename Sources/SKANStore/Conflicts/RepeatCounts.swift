import SKANCore

/// What the kept repeats (``RepeatTable``) of one ad network add up to: conflicts, by value that differed, and the
/// installs seen from both sides (``CopySide``), agreeing or not. Each SQL engine computes it in one aggregate
/// statement (``statement(from:to:placeholder:)``), so that a report over millions of repeats holds one row per
/// network, never the repeats; the memory engine folds its rows with ``fold(_:from:to:)``, the reference the SQL is
/// tested against.
public struct RepeatCounts: Sendable, Hashable {
    /// The ad network.
    public var network: String
    /// Repeats whose values differed from the stored postback's, from either side.
    public var conflicts: Int
    /// Of those, by the value that differed (``RepeatTable/compared`` names; absent: none).
    public var conflictsByField: [String: Int]
    /// Installs seen from both sides (a key with a repeat from the other side than its stored postback's) whose
    /// other-side repeats all agreed with it.
    public var copiesAgreeing: Int
    /// Installs seen from both sides where an other-side repeat differed.
    public var copiesDisagreeing: Int
    /// Of the installs seen from both sides, those whose stored (first) postback was the developer copy.
    public var pairsFromDeveloper: Int

    /// Makes counts.
    public init(network: String, conflicts: Int = 0, conflictsByField: [String: Int] = [:], copiesAgreeing: Int = 0,
                copiesDisagreeing: Int = 0, pairsFromDeveloper: Int = 0) {
        self.network = network
        self.conflicts = conflicts
        self.conflictsByField = conflictsByField
        self.copiesAgreeing = copiesAgreeing
        self.copiesDisagreeing = copiesDisagreeing
        self.pairsFromDeveloper = pairsFromDeveloper
    }

    /// Installs seen from both sides.
    public var pairs: Int { copiesAgreeing + copiesDisagreeing }

    /// The SQL (SQLite's and PostgreSQL's alike) of a repeat row whose ``RepeatTable/compared`` value `name` differed.
    static func differs(_ name: String) -> String {
        "(',' || differing || ',' LIKE '%,\(name),%')"
    }

    /// The statement every SQL engine runs: per ad network, in network order, the conflicts, each compared value's
    /// conflicts in ``RepeatTable/compared`` order, the agreeing and the disagreeing pairs and the pairs first seen
    /// as a developer copy, over the repeats whose stored postback arrived on the days `from...to` (either may be
    /// absent). The pairs are grouped in the order of the table's unique key, whose index both engines can read them
    /// by; nothing but a row per network is held. `placeholder(n)` writes the engine's n-th parameter (1-based).
    public static func statement(from: String?, to: String?, placeholder: (Int) -> String) -> (sql: String, arguments: [String]) {
        var arguments: [String] = []
        // The days, once for each branch: SQLite's `?` is a parameter of its own at each place.
        func within() -> String {
            var filters: [String] = []
            let day = "substr(first_received_at, 1, 10)"
            if let from { arguments.append(from); filters.append("\(day) >= \(placeholder(arguments.count))") }
            if let to { arguments.append(to); filters.append("\(day) <= \(placeholder(arguments.count))") }
            return filters.isEmpty ? "" : " AND " + filters.joined(separator: " AND ")
        }
        let (conflictDays, pairDays) = (within(), within())
        let one = { (condition: String) in "CASE WHEN \(condition) THEN 1 ELSE 0 END" }
        // PostgreSQL's sum of a bigint is a numeric: the totals are cast back.
        let total = { (column: String) in "CAST(sum(\(column)) AS bigint)" }
        let fields = RepeatTable.compared.map { "sum(\(one("differing <> '' AND " + differs($0.name))))" }
        let sql = """
            SELECT network, \((["conflicts"] + RepeatTable.compared.indices.map { "field\($0)" }
                                + ["agreeing", "disagreeing", "from_developer"]).map(total).joined(separator: ", "))
            FROM (
                SELECT ad_network_id AS network, sum(\(one("differing <> ''"))) AS conflicts,
                    \(fields.enumerated().map { "\($0.element) AS field\($0.offset)" }.joined(separator: ", ")),
                    0 AS agreeing, 0 AS disagreeing, 0 AS from_developer
                FROM \(RepeatTable.name) WHERE differing <> ''\(conflictDays)
                GROUP BY ad_network_id
                UNION ALL
                SELECT network, 0, \(RepeatTable.compared.map { _ in "0" }.joined(separator: ", ")),
                    \(one("differs = 0")), \(one("differs = 1")), \(one("first_side = '\(CopySide.developer.rawValue)'"))
                FROM (
                    SELECT ad_network_id AS network, min(first_side) AS first_side,
                        max(\(one("differing <> ''"))) AS differs
                    FROM \(RepeatTable.name) WHERE first_side <> repeat_side\(pairDays)
                    GROUP BY transaction_id, ad_network_id, dedup_sequence_index, framework
                ) AS pairs
            ) AS counted
            GROUP BY network
            ORDER BY network
            """
        return (sql, arguments)
    }

    /// A row of ``statement(from:to:placeholder:)``: the network and its counts in the statement's order.
    public init(network: String, counts: [Int]) {
        let fieldCount = RepeatTable.compared.count
        precondition(counts.count == fieldCount + 4, "a row of another statement")
        var byField: [String: Int] = [:]
        for (index, value) in RepeatTable.compared.enumerated() where counts[1 + index] > 0 {
            byField[value.name] = counts[1 + index]
        }
        self.init(network: network, conflicts: counts[0], conflictsByField: byField,
                  copiesAgreeing: counts[fieldCount + 1], copiesDisagreeing: counts[fieldCount + 2],
                  pairsFromDeveloper: counts[fieldCount + 3])
    }

    /// The same counts from rows in ``RepeatTable/columns``' order (the memory engine's), in plain Swift: what
    /// ``statement(from:to:placeholder:)`` says in SQL.
    public static func fold(_ rows: [[ColumnValue]], from: String?, to: String?) -> [RepeatCounts] {
        func index(_ name: String) -> Int { RepeatTable.columns.firstIndex { $0.name == name }! }
        let (network, differingAt, firstSide, repeatSide, firstAt) = (index("ad_network_id"), RepeatTable.differingIndex,
                                                                     index("first_side"), index("repeat_side"),
                                                                     index("first_received_at"))
        let key = ["transaction_id", "ad_network_id", "dedup_sequence_index", "framework"].map(index)
        var counts: [String: RepeatCounts] = [:]
        var pairs: [[ColumnValue]: (network: String, fromDeveloper: Bool, differs: Bool)] = [:]
        for row in rows {
            let day = String((row[firstAt].text ?? "").prefix(10))
            if let from, day < from { continue }
            if let to, day > to { continue }
            let name = row[network].text ?? ""
            let differing = (row[differingAt].text ?? "").split(separator: ",").map(String.init)
            if !differing.isEmpty {
                counts[name, default: RepeatCounts(network: name)].conflicts += 1
                for field in differing { counts[name]!.conflictsByField[field, default: 0] += 1 }
            }
            guard row[firstSide] != row[repeatSide] else { continue }
            let pairKey = key.map { row[$0] }
            let seen = pairs[pairKey]
            pairs[pairKey] = (name, row[firstSide].text == CopySide.developer.rawValue,
                              (seen?.differs ?? false) || !differing.isEmpty)
        }
        for pair in pairs.values {
            var row = counts[pair.network] ?? RepeatCounts(network: pair.network)
            if pair.differs { row.copiesDisagreeing += 1 } else { row.copiesAgreeing += 1 }
            if pair.fromDeveloper { row.pairsFromDeveloper += 1 }
            counts[pair.network] = row
        }
        return counts.values.sorted { $0.network < $1.network }
    }
}
