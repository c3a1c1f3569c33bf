import SKANCore
import SKANStore

/// What can be said of the values a collector stored and Apple's signature does not cover, per ad network
/// (`skan report --integrity`, the dashboard's integrity page): repeats whose values differed from the counted
/// postback, developer copies reconciled with the network's postbacks, and the consistency rules
/// (``PostbackCheck``). Aggregated by the engine (``PostbackReader/repeatCounts(from:to:)`` and
/// ``PostbackReader/checks(from:to:)``); the counted rows and every other report are unchanged.
public struct IntegrityRow: Sendable, Hashable {
    /// The ad network.
    public var network: String
    /// Repeats whose unsigned values differed from the stored postback's, from either side.
    public var conflicts = 0
    /// Of those, by the value that differed (``RepeatTable/compared`` names; a repeat may count under several).
    public var conflictsByField: [String: Int] = [:]
    /// Postbacks seen from both sides (a developer copy and the network's postback) whose values agreed.
    public var copiesAgreeing = 0
    /// Postbacks seen from both sides whose values differed at least once.
    public var copiesDisagreeing = 0
    /// Winning postbacks seen only as a developer copy.
    public var developerOnly = 0
    /// Winning postbacks seen only from the network (every one, where the app sends no developer copies here).
    public var networkOnly = 0
    /// Stored postbacks that break each rule.
    public var rules: [PostbackCheck: Int] = [:]

    /// An empty row for `network`.
    public init(network: String) {
        self.network = network
    }

    /// The column names, in ``cells``' order.
    public static let header: [String] = ["ad_network_id", "conflicts"]
        + RepeatTable.compared.map { "conflicts_" + $0.name.replacingOccurrences(of: "-", with: "_") }
        + ["copies_agreeing", "copies_disagreeing", "developer_only", "network_only"]
        + PostbackCheck.allCases.map(\.rawValue)

    /// The row's cells: the network, then counts.
    public var cells: [String] {
        var counts = [conflicts] + RepeatTable.compared.map { conflictsByField[$0.name] ?? 0 }
        counts += [copiesAgreeing, copiesDisagreeing, developerOnly, networkOnly]
        counts += PostbackCheck.allCases.map { rules[$0] ?? 0 }
        return [network] + counts.map(String.init)
    }
}

/// Builds ``IntegrityRow``s from a reader.
public enum IntegrityReport {
    /// One row per ad network that has postbacks or repeats, in network order, over the arrival days `from...to`
    /// (either absent; a repeat counts on the day its first postback arrived). Two aggregates the engine runs
    /// (``PostbackReader/repeatCounts(from:to:)`` and ``PostbackReader/checks(from:to:)``), each a row per network:
    /// memory stays flat however many postbacks and repeats the store holds.
    public static func rows(from reader: any PostbackReader, from: String? = nil, to: String? = nil) async throws(ReportError) -> [IntegrityRow] {
        var rows: [String: IntegrityRow] = [:]
        var repeats: [String: RepeatCounts] = [:]
        do {
            for counts in try await reader.repeatCounts(from: from, to: to) {
                repeats[counts.network] = counts
                var integrity = IntegrityRow(network: counts.network)
                integrity.conflicts = counts.conflicts
                integrity.conflictsByField = counts.conflictsByField
                integrity.copiesAgreeing = counts.copiesAgreeing
                integrity.copiesDisagreeing = counts.copiesDisagreeing
                rows[counts.network] = integrity
            }
            for checks in try await reader.checks(from: from, to: to) {
                var integrity = rows[checks.network] ?? IntegrityRow(network: checks.network)
                integrity.rules = checks.rules
                let pairs = repeats[checks.network] ?? RepeatCounts(network: checks.network)
                integrity.developerOnly = max(0, (checks.winningBySide[.developer] ?? 0) - pairs.pairsFromDeveloper)
                integrity.networkOnly = max(0, (checks.winningBySide[.network] ?? 0) - (pairs.pairs - pairs.pairsFromDeveloper))
                rows[checks.network] = integrity
            }
        } catch let error as StoreError {
            throw ReportError(.database, error.reason)
        } catch {
            throw ReportError(.database, "cannot count the repeats: \(error)")
        }
        return rows.values.sorted { $0.network < $1.network }
    }
}
