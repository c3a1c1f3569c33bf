/// A count of stored postbacks grouped by some of their fields, in neutral terms: each engine renders it in its
/// own SQL (``PostbackReader/aggregate(_:each:)``), and `skan report` gives it meaning.
public struct AggregateQuery: Sendable, Hashable {
    /// A grouping dimension. Values come out as text; booleans as `true`/`false`; absent values as `nil`.
    public enum Dimension: Sendable, Hashable, CaseIterable {
        case network, app
        /// The campaign number (≤ 3.0) or the source identifier, as sent.
        case campaign
        /// The source app's App Store id, or the web source domain.
        case source
        case version
        /// SKAdNetwork's `fidelity-type` number.
        case fidelity
        case didWin, redownload
        /// The conversion window.
        case window
        /// How many digits of the source identifier the privacy tier let through.
        case tier
        case conversionValue, coarseValue
        /// The day, on the query's ``AggregateQuery/day`` basis.
        case day
        /// `skadnetwork` or `adattributionkit`.
        case framework
        /// `download`, `redownload` or `re-engagement`.
        case conversionType
        /// `view` or `click`.
        case interaction
        /// The outer, unsigned `country-code`.
        case country
        /// AdAttributionKit's `marketplace-identifier`.
        case marketplace
    }

    /// Which day a postback counts on.
    public enum DayBasis: String, Sendable, Hashable, CaseIterable {
        /// The day the collector received it (UTC).
        case arrival
        /// The estimated install day: the arrival time minus the middle of the device's documented delays
        /// (spec §6). Up to 3.0 a postback leaves 24 h after the last update plus 0–24 h: 36 h. 4.0 window 0 is
        /// prepared at the end of day 2 (48 h) and sent 24–48 h later: 84 h; window 1 ends on day 7 and is sent
        /// 24–144 h later: 252 h; window 2 ends on day 35: 924 h. A window locked early makes the estimate too
        /// early by the unused part of the window; it is an estimate.
        case install
    }

    /// A condition on one dimension: only postbacks whose value of it, as text (as it comes out of a group),
    /// equals ``value``; a `nil` value keeps the postbacks that have none.
    public struct Filter: Sendable, Hashable {
        /// The dimension compared.
        public var dimension: Dimension
        /// The text it must equal, or `nil` for absent.
        public var value: String?

        /// Makes a filter.
        public init(_ dimension: Dimension, equals value: String?) {
            self.dimension = dimension
            self.value = value
        }
    }

    /// Grouping dimensions, in column order; empty for one total row.
    public var dimensions: [Dimension]
    /// The day basis of ``Dimension/day`` and of the date range.
    public var day: DayBasis
    /// First day included, `YYYY-MM-DD`.
    public var from: String?
    /// Last day included.
    public var to: String?
    /// Conditions every counted postback meets, all of them.
    public var filters: [Filter]
    /// Also split each group by its fine and coarse value (for decoding values through a schema); the rows of
    /// one group stay adjacent.
    public var splitsByValue: Bool
    /// Whether the store may answer from its per-day rollup (``PostbackRollup``) when the rollup covers the query;
    /// `false` reads every postback, the same numbers more slowly: for checking the rollup against the rows.
    public var allowsRollups = true

    /// Makes a query.
    public init(dimensions: [Dimension], day: DayBasis = .arrival, from: String? = nil, to: String? = nil,
                filters: [Filter] = [], splitsByValue: Bool = false) {
        self.dimensions = dimensions
        self.day = day
        self.from = from
        self.to = to
        self.filters = filters
        self.splitsByValue = splitsByValue
    }
}

/// One group of an ``AggregateQuery``: its values and its counts.
public struct AggregateRow: Sendable, Hashable {
    /// The group's values, one per dimension.
    public var keys: [String?]
    /// With ``AggregateQuery/splitsByValue``: the fine value of this part of the group.
    public var conversionValue: Int?
    /// With ``AggregateQuery/splitsByValue``: the coarse value of this part of the group.
    public var coarseValue: String?
    /// Postbacks.
    public var postbacks: Int
    /// Winning first postbacks (did-win true or absent, window 0 or absent) of downloads and redownloads.
    public var installs: Int
    /// Those of ``installs`` that are redownloads.
    public var redownloads: Int
    /// Winning first postbacks of re-engagements (AdAttributionKit: an ad brought a user back to the app).
    public var reengagements: Int
    /// did-win false.
    public var nonWinning: Int
    /// Neither a fine nor a coarse value.
    public var nullValues: Int

    /// Makes a row; public for the engines in other targets.
    public init(keys: [String?], conversionValue: Int?, coarseValue: String?, postbacks: Int, installs: Int,
                redownloads: Int, reengagements: Int, nonWinning: Int, nullValues: Int) {
        self.keys = keys
        self.conversionValue = conversionValue
        self.coarseValue = coarseValue
        self.postbacks = postbacks
        self.installs = installs
        self.redownloads = redownloads
        self.reengagements = reengagements
        self.nonWinning = nonWinning
        self.nullValues = nullValues
    }
}
