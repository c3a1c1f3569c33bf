import Foundation

/// ``AggregateQuery`` answered in plain Swift over stored rows: the readable reference for what every engine's SQL
/// must give (the reader conformance suite compares them). Each dimension, count and condition is written here the
/// way ``AggregateSQLDialect`` and ``PostbackRollup/measures(row:)`` write it in SQL, one value at a time.
struct MemoryAggregate {
    let query: AggregateQuery

    /// One stored row, its values read by column.
    struct Row {
        let values: [ColumnValue]

        private static let indexes = Dictionary(uniqueKeysWithValues: PostbackTable.columns.enumerated().map { ($1.name, $0) })

        func value(_ column: PostbackColumn) -> ColumnValue { values[Self.indexes[column.name]!] }

        func text(_ column: PostbackColumn) -> String? { value(column).text }
        func integer(_ column: PostbackColumn) -> Int? { value(column).integer }
        func boolean(_ column: PostbackColumn) -> Bool? { value(column).boolean }
    }

    /// A group's value of one dimension: text, or a number (which sorts as a number), or absent.
    enum Key: Hashable, Comparable {
        case absent
        case number(Int)
        case text(String)

        /// As it comes out of a group: numbers in decimal.
        var text: String? {
            switch self {
            case .absent: nil
            case .number(let number): String(number)
            case .text(let text): text
            }
        }

        /// Absent first, numbers by value, text by its bytes (the SQL engines' binary collation).
        static func < (a: Key, b: Key) -> Bool {
            switch (a, b) {
            case (.absent, .absent): false
            case (.absent, _): true
            case (_, .absent): false
            case (.number(let x), .number(let y)): x < y
            case (.text(let x), .text(let y)): x.utf8.lexicographicallyPrecedes(y.utf8)
            case (.number, .text): true
            case (.text, .number): false
            }
        }
    }

    /// The rows of the query over `rows`, in the order the engines give them: by the dimensions, absent first, and
    /// within a group by value (which the engines leave unordered).
    func run(_ rows: [[ColumnValue]]) -> [AggregateRow] {
        var groups: [[Key]: AggregateRow] = [:]
        for row in rows.lazy.map(Row.init) where keeps(row) {
            let keys = query.dimensions.map { key($0, of: row) }
            let split: [Key] = query.splitsByValue
                ? [row.integer(PostbackTable.conversionValue).map(Key.number) ?? .absent,
                   row.text(PostbackTable.coarseConversionValue).map(Key.text) ?? .absent]
                : []
            var group = groups[keys + split] ?? AggregateRow(
                keys: keys.map(\.text), conversionValue: query.splitsByValue ? row.integer(PostbackTable.conversionValue) : nil,
                coarseValue: query.splitsByValue ? row.text(PostbackTable.coarseConversionValue) : nil,
                postbacks: 0, installs: 0, redownloads: 0, reengagements: 0, nonWinning: 0, nullValues: 0)
            count(row, into: &group)
            groups[keys + split] = group
        }
        // Without a group, SQL gives one row of zeros over no rows.
        if groups.isEmpty, query.dimensions.isEmpty, !query.splitsByValue {
            return [AggregateRow(keys: [], conversionValue: nil, coarseValue: nil, postbacks: 0, installs: 0,
                                 redownloads: 0, reengagements: 0, nonWinning: 0, nullValues: 0)]
        }
        return groups.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.value)
    }

    /// Whether `row` is in the date range and meets every filter, each compared as text.
    func keeps(_ row: Row) -> Bool {
        let day = key(.day, of: row).text ?? ""
        if let from = query.from, day < from { return false }
        if let to = query.to, day > to { return false }
        return query.filters.allSatisfy { key($0.dimension, of: row).text == $0.value }
    }

    /// Adds `row` to the counts of `group`: the definitions of ``PostbackRollup/measures(row:)``.
    func count(_ row: Row, into group: inout AggregateRow) {
        let didWin = row.boolean(PostbackTable.didWin)
        let firstWinning = didWin != false && (row.integer(PostbackTable.postbackSequenceIndex) ?? 0) == 0
        let reengagement = row.text(PostbackTable.conversionType) == "re-engagement"
        group.postbacks += 1
        if firstWinning && !reengagement { group.installs += 1 }
        if firstWinning && row.boolean(PostbackTable.redownload) == true { group.redownloads += 1 }
        if firstWinning && reengagement { group.reengagements += 1 }
        if didWin == false { group.nonWinning += 1 }
        if row.integer(PostbackTable.conversionValue) == nil && row.text(PostbackTable.coarseConversionValue) == nil {
            group.nullValues += 1
        }
    }

    /// A dimension's value for `row`.
    func key(_ dimension: AggregateQuery.Dimension, of row: Row) -> Key {
        func text(_ value: String?) -> Key { value.map(Key.text) ?? .absent }
        func number(_ value: Int?) -> Key { value.map(Key.number) ?? .absent }
        func boolean(_ value: Bool?) -> Key { value.map { .text($0 ? "true" : "false") } ?? .absent }
        switch dimension {
        case .network: return text(row.text(PostbackTable.adNetworkID))
        case .app: return number(row.integer(PostbackTable.appID))
        case .campaign: return text(row.integer(PostbackTable.campaignID).map(String.init) ?? row.text(PostbackTable.sourceIdentifier))
        case .source: return text(row.integer(PostbackTable.sourceAppID).map(String.init) ?? row.text(PostbackTable.sourceDomain))
        case .version: return text(row.text(PostbackTable.version))
        case .fidelity: return number(row.integer(PostbackTable.fidelityType))
        case .didWin: return boolean(row.boolean(PostbackTable.didWin))
        case .redownload: return boolean(row.boolean(PostbackTable.redownload))
        case .window: return number(row.integer(PostbackTable.postbackSequenceIndex))
        case .tier: return number(row.text(PostbackTable.sourceIdentifier)?.count)
        case .conversionValue: return number(row.integer(PostbackTable.conversionValue))
        case .coarseValue: return text(row.text(PostbackTable.coarseConversionValue))
        case .framework: return text(row.text(PostbackTable.framework))
        case .conversionType: return text(row.text(PostbackTable.conversionType))
        case .interaction:
            return text(row.integer(PostbackTable.fidelityType).flatMap { [0: "view", 1: "click"][$0] })
        case .country: return text(row.text(PostbackTable.countryCode))
        case .marketplace: return text(row.text(PostbackTable.marketplace))
        case .day:
            let receivedAt = row.text(PostbackTable.receivedAt) ?? ""
            switch query.day {
            case .arrival: return .text(String(receivedAt.prefix(10)))
            case .install: return .text(Self.day(receivedAt, minusHours: Self.installDelay(row)))
            }
        }
    }

    /// The hours ``AggregateQuery/DayBasis/install`` takes off the arrival time: 36 up to SKAdNetwork 3.0; for 4.0
    /// and AdAttributionKit 84, 252 or 924 by window.
    static func installDelay(_ row: Row) -> Int {
        guard row.text(PostbackTable.version) == "4.0" || row.text(PostbackTable.framework) == "adattributionkit" else {
            return 36
        }
        return switch row.integer(PostbackTable.postbackSequenceIndex) ?? 0 {
        case 0: 84
        case 1: 252
        default: 924
        }
    }

    /// The UTC day, `YYYY-MM-DD`, `hours` before the ISO 8601 time `receivedAt`.
    static func day(_ receivedAt: String, minusHours hours: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: receivedAt) else { return "" }
        return String(Timestamp.iso8601(date.addingTimeInterval(-Double(hours) * 3600)).prefix(10))
    }
}
