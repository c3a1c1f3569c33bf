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

        static func isDay(_ text: String) -> Bool {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts.map(\.count) == [4, 2, 2], parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                  let month = Int(parts[1]), let day = Int(parts[2]) else { return false }
            return (1 ... 12).contains(month) && (1 ... 31).contains(day)
        }
    }

    /// Queues for `destination` the postbacks `reader` holds that arrived on `days` and that its filter takes, in
    /// arrival (id) order, reading `batch` postbacks at a time (``ExportPage``): `queue` gets each step's entries (the
    /// caller queues them, one transaction a step) before the next step is read, so what is held is one step,
    /// however many postbacks the days hold. Returns how many entries were queued.
    public static func replay(from reader: any PostbackReader, to destination: RelayDestination, days: Days,
                              batch: Int = 1000, queue: ([OutboxItem]) async throws -> Void) async throws -> Int {
        var page = ExportPage(after: 0, limit: max(batch, 1), from: days.since, to: days.until)
        var queued = 0
        while true {
            var items: [OutboxItem] = []
            var (read, last): (Int, Int64?) = (0, nil)
            var columns: [PostbackColumn?] = []
            var idIndex = -1
            try await reader.export(.postbacks, page: page, header: { names in
                let byName = Dictionary(PostbackTable.columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
                columns = names.map { byName[$0] }
                idIndex = names.firstIndex(of: "id") ?? -1
            }, each: { row in
                read += 1
                if idIndex >= 0, case .integer(let id) = row.value(at: idIndex) { last = id }
                var values: [String: ColumnValue] = [:]
                for (index, column) in columns.enumerated() {
                    guard let column else { continue }
                    values[column.name] = Self.value(row.value(at: index))
                }
                let stored = StoredPostback { values[$0.name] ?? .null }
                if destination.filter.takes(stored) { items.append(RelayRouter.item(for: stored, to: destination)) }
            })
            if !items.isEmpty {
                try await queue(items)
                queued += items.count
            }
            // A short step is the last; so is one whose rows had no id to go on from (never, from an engine).
            guard read == page.limit, let last else { return queued }
            page.after = last
        }
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
