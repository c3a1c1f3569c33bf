import SKANReports

/// What one dashboard page shows, read from its URL's query so that a view can be shared as a link: the date
/// range, the network, campaign (or source identifier) and window filters, and what the installs chart stacks by.
public struct DashboardView: Sendable, Hashable {
    /// What the installs-per-day chart stacks by.
    public enum Stack: String, Sendable, Hashable, CaseIterable {
        case network, campaign
    }

    /// First day included, `YYYY-MM-DD` (UTC arrival day), as `skan report --from`.
    public var from: String?
    /// Last day included.
    public var to: String?
    /// Only this ad network.
    public var network: String?
    /// Only this campaign or source identifier.
    public var campaign: String?
    /// Only this conversion window (0, 1 or 2).
    public var window: String?
    /// What the installs chart stacks by.
    public var stack: Stack = .network

    /// The view of a URL query; a bad value is a ``DashboardError`` naming the parameter, the value and what was
    /// expected. Empty values mean "not set", as an HTML form sends them.
    public init(query: [String: String]) throws(DashboardError) {
        func value(_ name: String) -> String? {
            guard let text = query[name], !text.isEmpty else { return nil }
            return text
        }
        from = value("from")
        to = value("to")
        network = value("network")
        campaign = value("campaign")
        window = value("window")
        if let window, !["0", "1", "2"].contains(window) {
            throw DashboardError(.badParameter, "window must be 0, 1 or 2, got \"\(window.prefix(40))\"")
        }
        if let text = value("stack") {
            guard let stack = Stack(rawValue: text) else {
                throw DashboardError(.badParameter, "stack must be network or campaign, got \"\(text.prefix(40))\"")
            }
            self.stack = stack
        }
        do {
            _ = try request(fields: [])
        } catch {
            // The report's own date check, with the URL's parameter names.
            throw DashboardError(.badParameter, error.reason.replacingOccurrences(of: "--", with: ""))
        }
    }

    /// The filters, as `skan report --where` takes them.
    public var filters: [ReportFilter] { filters(campaign: campaign) }

    /// The filters with `campaign` for the view's campaign: one of the source identifiers a campaign of the
    /// hierarchy stands for (``CampaignHierarchy``).
    func filters(campaign: String?) -> [ReportFilter] {
        var filters: [ReportFilter] = []
        if let network { filters.append(ReportFilter(.adNetwork, equals: network)) }
        if let campaign { filters.append(ReportFilter(.campaign, equals: campaign)) }
        if let window { filters.append(ReportFilter(.window, equals: window)) }
        return filters
    }

    /// The report request behind a panel grouped by `fields`: the same request `skan report` makes with this view's
    /// `--from`, `--to` and `--where`.
    /// `modeled` adds `--modeled`'s columns (it needs a schema).
    public func request(fields: [ReportField], schema: ConversionSchema? = nil, modeled: Bool = false) throws(ReportError) -> ReportRequest {
        try request(fields: fields, schema: schema, modeled: modeled, campaign: campaign)
    }

    /// The same with `campaign` in place of the view's campaign.
    func request(fields: [ReportField], schema: ConversionSchema?, modeled: Bool = false,
                 campaign: String?) throws(ReportError) -> ReportRequest {
        try ReportRequest(fields: fields, from: from, to: to, filters: filters(campaign: campaign), schema: schema,
                          modeled: modeled)
    }

    /// The view's parameters as a URL query (empty ones left out), for links that keep the view.
    public var queryItems: [(name: String, value: String)] {
        var items: [(String, String)] = []
        if let from { items.append(("from", from)) }
        if let to { items.append(("to", to)) }
        if let network { items.append(("network", network)) }
        if let campaign { items.append(("campaign", campaign)) }
        if let window { items.append(("window", window)) }
        if stack != .network { items.append(("stack", stack.rawValue)) }
        return items
    }

    /// The `skan report` command line that prints a panel's CSV, shown under its link; every value from the URL
    /// shell-quoted, so that pasting it runs that report and nothing else.
    public func reportCommand(fields: [ReportField]) -> String {
        reportCommand(fields: fields, campaigns: campaign.map { [$0] } ?? [])
    }

    /// The command for a campaign of several source identifiers (`campaigns`, the first the view's): one report per
    /// identifier, which the page sums.
    func reportCommand(fields: [ReportField], campaigns: [String]) -> String {
        var words = ["skan report"]
        if !fields.isEmpty { words.append("--by " + fields.map(\.rawValue).joined(separator: ",")) }
        if let from { words.append("--from " + ShellQuoting.quote(from)) }
        if let to { words.append("--to " + ShellQuoting.quote(to)) }
        for filter in filters(campaign: campaigns.first) { words.append("--where " + ShellQuoting.quote(filter.description)) }
        words.append("--format csv")
        let others = campaigns.dropFirst().map { "--where " + ShellQuoting.quote("campaign=\($0)") }
        guard !others.isEmpty else { return words.joined(separator: " ") }
        return words.joined(separator: " ") + ", summed with the same for " + others.joined(separator: ", ")
    }
}
