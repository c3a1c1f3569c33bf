import Foundation
import SKANStore

/// Stored postbacks queued again for one destination (`skan relay replay`): a partner added later gets the history
/// it missed, or one that lost data gets it again.
///
/// Each entry carries the key the postback got, or would have got, when it arrived (``RelayRouter/idempotencyKey(destination:_:)``
/// of its dedup key), never a new one: a partner that already has a postback drops the repeat. The destination's
/// filter applies as it does to arriving postbacks.
public enum RelayReplay {
    /// What a replay covers: arrival days, UTC, both included, as `YYYY-MM-DD`.
    public struct Days: Sendable, Hashable {
        /// The first day included.
        public let since: String
        /// The last day included; `nil`: every day from `since` on.
        public let until: String?

        /// Checks the days: each must be `YYYY-MM-DD`, and `until` not before `since`.
        public init(since: String, until: String?) throws(RelayError) {
            for (option, day) in [("--since", since), ("--until", until)] {
                guard let day else { continue }
                guard Self.isDay(day) else {
                    throw RelayError(.invalidReplay, "\(option) must be a day YYYY-MM-DD (UTC), got \"\(day)\"")
                }
            }
            if let until, until < since {
                throw RelayError(.invalidReplay, "--until \(until) is before --since \(since)")
            }
            self.since = since
            self.until = until
        }

        /// Whether a postback received at `receivedAt` (ISO 8601 UTC, as stored) is in the range.
        func contains(_ receivedAt: some Collection<UInt8>) -> Bool {
            let day = String(decoding: receivedAt.prefix(10), as: UTF8.self)
            return day >= since && (until.map { day <= $0 } ?? true)
        }

        static func isDay(_ text: String) -> Bool {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts.map(\.count) == [4, 2, 2], parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                  let month = Int(parts[1]), let day = Int(parts[2]) else { return false }
            return (1 ... 12).contains(month) && (1 ... 31).contains(day)
        }
    }

    /// The entries `destination` gets for the postbacks `reader` holds that arrived on `days` and that its filter
    /// takes, in arrival order. Reads the postbacks table once, from start to end (the export's stream).
    public static func items(from reader: any PostbackReader, to destination: RelayDestination,
                             days: Days) async throws -> [OutboxItem] {
        var items: [OutboxItem] = []
        var columns: [PostbackColumn?] = []
        var receivedAt = 0
        try await reader.export(.postbacks, header: { names in
            let byName = Dictionary(PostbackTable.columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            columns = names.map { byName[$0] }
            receivedAt = names.firstIndex(of: PostbackTable.receivedAt.name) ?? -1
        }, each: { row in
            // The day first, from the row's own bytes: most rows of a long history are outside the range.
            guard receivedAt >= 0, case .text(let arrived) = row.value(at: receivedAt), days.contains(arrived) else { return }
            var values: [String: ColumnValue] = [:]
            for (index, column) in columns.enumerated() {
                guard let column else { continue }
                values[column.name] = Self.value(row.value(at: index))
            }
            let stored = StoredPostback { values[$0.name] ?? .null }
            if destination.filter.takes(stored) { items.append(RelayRouter.item(for: stored, to: destination)) }
        })
        return items
    }

    /// An exported value as a column value (booleans are exported as 0 or 1, as the columns read them).
    static func value(_ value: ExportValue) -> ColumnValue {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .real(let number): .integer(Int64(number))
        case .text(let bytes): .text(String(decoding: bytes, as: UTF8.self))
        case .blob(let bytes): .blob(Array(bytes))
        }
    }
}
