import SKANCore
import SKANStore

/// What can be said of the values a collector stored and Apple's signature does not cover, per ad network
/// (`skan report --integrity`, the dashboard's integrity page): repeats whose values differed from the counted
/// postback, developer copies reconciled with the network's postbacks, and the consistency rules
/// (``PostbackCheck``). Folded on the read side from the store's ``RepeatTable`` rows (few: only repeats) and one
/// pass of ``PostbackReader/checks(from:to:)``; the counted rows and every other report are unchanged.
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
    /// (either absent; a repeat counts on the day its first postback arrived).
    public static func rows(from reader: any PostbackReader, from: String? = nil, to: String? = nil) async throws(ReportError) -> [IntegrityRow] {
        var rows: [String: IntegrityRow] = [:]
        // Per network, the keys seen from both sides, by the side of the first arrival, and whether they disagreed.
        var matched: [String: [String: (first: CopySide, differs: Bool)]] = [:]
        do {
            var names: [String] = []
            try await reader.export(.repeats) { header in
                names = header
            } each: { row in
                let value = { (name: String) -> String? in
                    guard let index = names.firstIndex(of: name), index < row.valueCount else { return nil }
                    switch row.value(at: index) {
                    case .text(let bytes), .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
                    case .integer(let number): return String(number)
                    case .real(let number): return String(number)
                    case .null: return nil
                    }
                }
                let day = String((value("first_received_at") ?? "").prefix(10))
                if let from, day < from { return }
                if let to, day > to { return }
                let network = value("ad_network_id") ?? ""
                let differing = (value("differing") ?? "").split(separator: ",").map(String.init)
                var integrity = rows[network] ?? IntegrityRow(network: network)
                if !differing.isEmpty {
                    integrity.conflicts += 1
                    for field in differing { integrity.conflictsByField[field, default: 0] += 1 }
                }
                rows[network] = integrity
                let first = CopySide(rawValue: value("first_side") ?? "") ?? .network
                let again = CopySide(rawValue: value("repeat_side") ?? "") ?? .network
                guard first != again else { return }
                let key = [value("framework"), value("transaction_id"), value("dedup_sequence_index")]
                    .map { $0 ?? "" }.joined(separator: "\u{1F}")
                let seen = matched[network, default: [:]][key]
                matched[network, default: [:]][key] = (first, (seen?.differs ?? false) || !differing.isEmpty)
            }
            for checks in try await reader.checks(from: from, to: to) {
                var integrity = rows[checks.network] ?? IntegrityRow(network: checks.network)
                integrity.rules = checks.rules
                let pairs = matched[checks.network] ?? [:]
                let fromDeveloper = pairs.values.filter { $0.first == .developer }.count
                integrity.developerOnly = max(0, (checks.winningBySide[.developer] ?? 0) - fromDeveloper)
                integrity.networkOnly = max(0, (checks.winningBySide[.network] ?? 0) - (pairs.count - fromDeveloper))
                rows[checks.network] = integrity
            }
        } catch let error as StoreError {
            throw ReportError(.database, error.reason)
        } catch {
            throw ReportError(.database, "cannot read the repeats: \(error)")
        }
        for (network, pairs) in matched {
            let disagreeing = pairs.values.filter(\.differs).count
            rows[network]?.copiesDisagreeing = disagreeing
            rows[network]?.copiesAgreeing = pairs.count - disagreeing
        }
        return rows.values.sorted { $0.network < $1.network }
    }
}
