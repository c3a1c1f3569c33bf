/// One row of a report: the group's values and its counts.
public struct ReportRow: Sendable, Hashable {
    /// The grouping values, one per ``ReportRequest/fields`` entry; `nil` where the postbacks have no value.
    public var keys: [String?]
    /// Postbacks in the group.
    public var postbacks = 0
    /// Attributed installs: winning first postbacks (did-win true or absent before 3.0, window 0 or absent).
    public var installs = 0
    /// Attributed installs flagged as redownloads.
    public var redownloads = 0
    /// Attributed re-engagements: winning first postbacks of AdAttributionKit's `re-engagement` conversions.
    public var reengagements = 0
    /// Non-winning postbacks (did-win false, 3.0 and later).
    public var nonWinning = 0
    /// Postbacks carrying neither a fine nor a coarse value. Null is not zero: 0 is a value the app set.
    public var nullValues = 0
    /// With a schema: decoded event counts by event name.
    public var events: [String: Int] = [:]
    /// With a schema: the sum of the revenue ranges of the decoded values.
    public var revenueLow = 0.0
    public var revenueHigh = 0.0

    /// Null values as a share of postbacks.
    /// A row of zero counts for the group `keys`.
    public init(keys: [String?]) { self.keys = keys }

    public var nullRate: Double { postbacks == 0 ? 0 : Double(nullValues) / Double(postbacks) }

    /// Adds `other`'s counts to this row's (its keys are not looked at): two groups counted as one.
    public mutating func add(_ other: ReportRow) {
        postbacks += other.postbacks
        installs += other.installs
        redownloads += other.redownloads
        reengagements += other.reengagements
        nonWinning += other.nonWinning
        nullValues += other.nullValues
        events.merge(other.events, uniquingKeysWith: +)
        revenueLow += other.revenueLow
        revenueHigh += other.revenueHigh
    }
}

/// A finished report: the request, its rows in key order, and how to print them.
public struct Report: Sendable, Hashable {
    public let request: ReportRequest
    public let rows: [ReportRow]
    /// Event names of the schema, in column order.
    public let eventNames: [String]

    /// A report's shape before (or without) its rows: ``header`` and ``cells(_:)`` for streamed output.
    public init(request: ReportRequest, rows: [ReportRow] = [], eventNames: [String]? = nil) {
        self.request = request
        self.rows = rows
        self.eventNames = eventNames ?? request.schema?.eventNames ?? []
    }

    /// The column names.
    public var header: [String] {
        var columns = request.fields.map(\.column)
        columns += ["postbacks", "installs", "redownloads", "reengagements", "non_winning", "null_values", "null_rate"]
        if request.schema != nil {
            columns += eventNames.map { "event_\($0)" }
            columns += ["revenue_low", "revenue_high", "revenue_mid"]
        }
        if request.modeled {
            columns += ["modeled_postbacks"] + eventNames.map { "modeled_event_\($0)" }
            columns += ["modeled_revenue_low", "modeled_revenue_high", "modeled_revenue_mid"]
        }
        return columns
    }

    /// The columns of values from postbacks (the grouping keys), text a CSV neutralises (``CSVText``); the counts
    /// after them are numbers SKANKit wrote.
    public var textColumns: Range<Int> { 0..<request.fields.count }

    /// One row as text cells in ``header`` order; an absent key is the empty cell.
    public func cells(_ row: ReportRow) -> [String] {
        var cells = row.keys.map { $0 ?? "" }
        cells += [String(row.postbacks), String(row.installs), String(row.redownloads), String(row.reengagements),
                  String(row.nonWinning),
                  String(row.nullValues), Self.decimal(row.nullRate, places: 4)]
        if request.schema != nil {
            cells += eventNames.map { String(row.events[$0] ?? 0) }
            cells += [Self.decimal(row.revenueLow, places: 2), Self.decimal(row.revenueHigh, places: 2),
                      Self.decimal((row.revenueLow + row.revenueHigh) / 2, places: 2)]
        }
        if request.modeled {
            cells += modeledCells(row)
        }
        return cells
    }

    /// The modeled columns of `row`: what its null-valued winning postbacks would stand for had they carried
    /// values distributed as its valued postbacks' did. Non-winning postbacks carry no value by design (spec §3),
    /// so they are not modeled: the base is `null_values − non_winning`. Each decoded count is scaled by
    /// base ÷ (postbacks − null_values). With no valued postback to scale by, the estimates are empty (unknown),
    /// never zero.
    func modeledCells(_ row: ReportRow) -> [String] {
        let base = max(0, row.nullValues - row.nonWinning)
        let valued = row.postbacks - row.nullValues
        guard valued > 0 || base == 0 else {
            return [String(base)] + Array(repeating: "", count: eventNames.count + 3)
        }
        let factor = valued > 0 ? Double(base) / Double(valued) : 0
        let low = row.revenueLow * factor, high = row.revenueHigh * factor
        return [String(base)] + eventNames.map { Self.decimal(Double(row.events[$0] ?? 0) * factor, places: 2) }
            + [Self.decimal(low, places: 2), Self.decimal(high, places: 2), Self.decimal((low + high) / 2, places: 2)]
    }

    /// `modeled_revenue_mid` of `row` as ``modeledCells(_:)`` writes it (empty when unknown); `nil` without `--modeled`.
    public func modeledRevenueMid(_ row: ReportRow) -> String? {
        request.modeled ? modeledCells(row).last : nil
    }

    /// Fixed decimals, so that golden files do not depend on how a platform prints doubles.
    static func decimal(_ value: Double, places: Int) -> String {
        let scale = Double((0..<places).reduce(1) { result, _ in result * 10 })
        let scaled = (value * scale).rounded()
        let whole = Int(scaled) / Int(scale)
        let fraction = abs(Int(scaled) % Int(scale))
        let digits = String(fraction)
        return "\(whole).\(String(repeating: "0", count: places - digits.count))\(digits)"
    }
}
