/// The dashboard's pages, in navigation order.
enum DashboardPage: String, Sendable, CaseIterable {
    case overview, values, windows, frameworks, refused, integrity, relay, live

    /// The page's path.
    var path: String { self == .overview ? "/" : "/\(rawValue)" }

    /// Whether the view's filters narrow the page: not the refusals and the live counters, which belong to the
    /// whole store (a refused body has no trusted network, campaign or window to filter by).
    var isFiltered: Bool { self != .refused && self != .live && self != .integrity && self != .relay }

    /// What an unfiltered page says instead of the filter form.
    var unfilteredNote: String {
        switch self {
        case .integrity:
            "The whole store's repeats: a repeat is kept beside the postback it repeats, not counted as one."
        case .relay:
            "The whole outbox: each destination's queue holds every postback it takes, whatever its network, day or window."
        default:
            "The whole store's counters: refused bodies have no trusted network, campaign or window to filter by."
        }
    }

    var title: String {
        switch self {
        case .overview: "Overview"
        case .values: "Conversion values"
        case .windows: "Windows and tiers"
        case .frameworks: "Frameworks"
        case .refused: "Refused postbacks"
        case .integrity: "Value integrity"
        case .relay: "Relay"
        case .live: "Live"
        }
    }
}
