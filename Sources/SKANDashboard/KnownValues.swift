import SKANReports
import SKANStore

/// The ad networks and campaigns the store holds, for the filter's pickers and for the campaign a filter names.
struct KnownValues: Sendable {
    /// Ad network ids, sorted.
    let networks: [String]
    /// The stored source identifiers and campaign ids, as campaigns.
    let campaigns: CampaignHierarchy

    static let empty = KnownValues(networks: [], campaigns: CampaignHierarchy(ids: []))

    /// Two reports over the whole store, each from its smallest rollup: by network (the rollup without campaigns)
    /// and by campaign (the campaign-day rollup, the read behind the overview stacked by campaign).
    static func read(from reader: any PostbackReader) async throws -> KnownValues {
        func values(_ field: ReportField) async throws -> [String] {
            try await ReportBuilder.run(try ReportRequest(fields: [field]), on: reader).rows.compactMap { $0.keys[0] }
        }
        return KnownValues(networks: Set(try await values(.adNetwork)).sorted(),
                           campaigns: CampaignHierarchy(ids: try await values(.campaign)))
    }
}

/// ``KnownValues`` read at most once a minute: the campaign read costs what the overview by campaign costs (0.6 s
/// over the dashboard benchmark's 10,000,000 postbacks), too much for every page; a network or campaign first seen
/// in the last minute joins the pickers a minute later.
actor KnownValuesCache {
    private let maximumAge: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private var cached: (values: KnownValues, at: ContinuousClock.Instant)?

    init(maximumAge: Duration = .seconds(60), now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.maximumAge = maximumAge
        self.now = now
    }

    func values(from reader: any PostbackReader) async throws -> KnownValues {
        let time = now()
        if let cached, time - cached.at < maximumAge { return cached.values }
        let values = try await KnownValues.read(from: reader)
        // An empty store is read again at once: its first postbacks should not wait a minute for the pickers.
        if !values.networks.isEmpty { cached = (values, time) }
        return values
    }
}
