import Foundation
import SKANCore

/// What a conversion value means: the events and revenue an app encodes in its fine and coarse values.
///
/// A schema is one or more tables. Today's CSV (one row per value and event) is one table for every app, every
/// window and every day. A table may also be narrowed to one app (`app_id`), one postback window
/// (`postback_window`, 0–2) and a first day (`valid_from`): the schema in force on a postback's install day. Google
/// Ads' `SkAdNetworkConversionValueSchema` (``init(googleAds:source:)``) is one table per window of one app.
///
/// A postback is decoded by one table, wholly: the most specific that applies (its app over every app, its window over
/// every window), and of those the latest version in force on its install day. Revenue is a range, because a
/// 6-bit value can only say "between".
public struct ConversionSchema: Sendable, Hashable {
    /// One event a value stands for.
    public struct Event: Sendable, Hashable {
        public var name: String
        public var count: Int
        public var revenueLow: Double
        public var revenueHigh: Double

        public init(name: String, count: Int, revenueLow: Double, revenueHigh: Double) {
            self.name = name
            self.count = count
            self.revenueLow = revenueLow
            self.revenueHigh = revenueHigh
        }
    }

    /// Which postbacks a table decodes; `nil` for any.
    public struct Scope: Sendable, Hashable, Comparable {
        /// The advertised app's App Store id.
        public var app: String?
        /// The postback window, 0–2; a postback before 4.0 (no window) is its install's first, window 0.
        public var window: Int?
        /// The first install day (`YYYY-MM-DD`) the table is in force; `nil` from the start.
        public var validFrom: String?

        public init(app: String? = nil, window: Int? = nil, validFrom: String? = nil) {
            self.app = app
            self.window = window
            self.validFrom = validFrom
        }

        /// How closely it fits: an app counts more than a window.
        var specificity: Int { (app == nil ? 0 : 2) + (window == nil ? 0 : 1) }

        /// The order tables are tried in: the most specific first, then the latest version.
        public static func < (a: Scope, b: Scope) -> Bool {
            if a.specificity != b.specificity { return a.specificity > b.specificity }
            if a.validFrom != b.validFrom { return (a.validFrom ?? "") > (b.validFrom ?? "") }
            return ((a.app ?? ""), (a.window ?? -1)) < ((b.app ?? ""), (b.window ?? -1))
        }
    }

    /// The events of each value in one scope.
    public struct Table: Sendable, Hashable {
        /// Events per fine value.
        public var fine: [Int: [Event]] = [:]
        /// Events per coarse value.
        public var coarse: [CoarseValue: [Event]] = [:]

        public init() {}
    }

    /// The tables, by scope.
    public private(set) var tables: [Scope: Table] = [:]
    /// The scopes in the order ``table(app:window:installDay:)`` tries them.
    private var order: [Scope] = []

    /// Events per fine value of the table for every app, window and day (today's single-table schema).
    public var fine: [Int: [Event]] { tables[Scope()]?.fine ?? [:] }
    /// Events per coarse value of that table.
    public var coarse: [CoarseValue: [Event]] { tables[Scope()]?.coarse ?? [:] }

    /// Every event name the schema knows, sorted: the report's event columns.
    public var eventNames: [String] {
        var names = Set<String>()
        for table in tables.values {
            for events in table.fine.values { names.formUnion(events.map(\.name)) }
            for events in table.coarse.values { names.formUnion(events.map(\.name)) }
        }
        return names.sorted()
    }

    /// An empty schema.
    public init() {}

    /// Adds `event` as what fine `value` stands for in `scope`.
    public mutating func add(_ event: Event, fine value: Int, in scope: Scope = Scope()) {
        tables[scope, default: Table()].fine[value, default: []].append(event)
        order = tables.keys.sorted()
    }

    /// Adds `event` as what coarse `value` stands for in `scope`.
    public mutating func add(_ event: Event, coarse value: CoarseValue, in scope: Scope = Scope()) {
        tables[scope, default: Table()].coarse[value, default: []].append(event)
        order = tables.keys.sorted()
    }

    /// Whether any table is narrowed to an app: decoding then needs each postback's app.
    public var isPerApp: Bool { tables.keys.contains { $0.app != nil } }
    /// Whether any table is narrowed to a window: decoding then needs each postback's window.
    public var isPerWindow: Bool { tables.keys.contains { $0.window != nil } }
    /// Whether some scope has versions from different days: decoding then needs each postback's install day.
    public var isDated: Bool { tables.keys.contains { $0.validFrom != nil } }

    /// The table that decodes a postback of `app` in `window` installed on `installDay` (`nil` when unknown: the
    /// latest version), or `nil` when none applies.
    public func table(app: String?, window: Int?, installDay: String?) -> Table? {
        let window = window ?? 0
        for scope in order where (scope.app == nil || scope.app == app) && (scope.window == nil || scope.window == window)
            && (scope.validFrom == nil || installDay == nil || scope.validFrom! <= installDay!) {
            return tables[scope]
        }
        return nil
    }

    /// The events a postback's value stands for; none for a null value or a value the table does not list.
    public func events(conversionValue: Int?, coarseValue: CoarseValue?, app: String? = nil, window: Int? = nil,
                       installDay: String? = nil) -> [Event] {
        guard conversionValue != nil || coarseValue != nil,
              let table = table(app: app, window: window, installDay: installDay) else { return [] }
        if let conversionValue { return table.fine[conversionValue] ?? [] }
        if let coarseValue { return table.coarse[coarseValue] ?? [] }
        return []
    }
}
