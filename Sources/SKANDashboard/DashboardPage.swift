/// The dashboard's pages, in navigation order.
enum DashboardPage: String, Sendable, CaseIterable {
    case overview, values, windows, frameworks, refused, live

    /// The page's path.
    var path: String { self == .overview ? "/" : "/\(rawValue)" }

    var title: String {
        switch self {
        case .overview: "Overview"
        case .values: "Conversion values"
        case .windows: "Windows and tiers"
        case .frameworks: "Frameworks"
        case .refused: "Refused postbacks"
        case .live: "Live"
        }
    }
}
