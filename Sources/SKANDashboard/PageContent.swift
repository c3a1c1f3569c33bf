import Foundation
import SKANReports
import SKANStore

/// What the `page` template renders: navigation, the view's filter form, and the page's tiles and panels.
struct PageContent {
    struct NavItem { let title: String; let href: String; let current: Bool }
    struct Tile { let label: String; let value: String; let id: String }
    struct Option { let value: String; let label: String; let selected: Bool }
    struct Refusal { let receivedAt: String; let status: String; let field: String; let reason: String; let endpoint: String }
    struct Conflict {
        let receivedAt: String; let network: String; let dedupID: String; let window: String; let differing: String
        let first: String; let again: String; let firstFrom: String; let againFrom: String
    }

    let title: String
    let nav: [NavItem]
    /// Whether the page shows the filter form: only pages whose every number the filters narrow.
    let showsFilters: Bool
    let from: String
    let to: String
    let networks: [Option]
    let campaigns: [Option]
    /// ``networks`` and ``campaigns`` as `<option>` elements, escaped here: a store of thousands of campaigns made
    /// the template's per-option reflection most of a page's time (57 % of `/` over 10,000,000 postbacks).
    let networkOptions: String
    let campaignOptions: String
    let windows: [Option]
    let stacks: [Option]
    let showsStack: Bool
    let tiles: [Tile]
    /// A sentence in place of what the page would show when it has nothing to show.
    let emptyNote: String?
    let panels: [Panel]
    let refusals: [Refusal]
    let hasRefusals: Bool
    let conflicts: [Conflict]
    let hasConflicts: Bool
    /// The sentence an unfiltered page shows instead of the filter form.
    let unfilteredNote: String
    /// The command that prints the integrity counts per network (the integrity page).
    let integrityCommand: String?
    /// The relay page's destinations, dead letters, the note on where its numbers come from, and the command that
    /// retries every dead letter (when there is one).
    let relayRows: [RelayRow]
    let hasRelayRows: Bool
    let deadLetters: [DeadLetterRow]
    let hasDeadLetters: Bool
    let relayNote: String?
    let relayRetryCommand: String?
    let isLive: Bool
    let hasCharts: Bool
    let missingCharts: Bool

    static func build(_ page: DashboardPage, view: DashboardView, reader: any PostbackReader, schema: ConversionSchema?,
                      known: KnownValues, names: CampaignLabels = .none, latestRefusals: Int,
                      hasCharts: Bool, relay: RelayDelivery? = nil, now: Date = Date()) async throws -> PageContent {
        let builder = PanelBuilder(reader: reader, view: view, schema: schema, known: known, names: names)
        var tiles: [Tile] = []
        var panels: [Panel] = []
        var refusals: [Refusal] = []
        var conflicts: [Conflict] = []
        var emptyNote: String?
        var relaySection: RelaySection?
        switch page {
        case .overview:
            let totals = try await builder.totals()
            if totals.postbacks == 0 {
                // Zeros for a campaign the store does not hold would read as a campaign that did nothing.
                emptyNote = builder.emptyView
            } else {
                let stats = try await reader.stats()
                tiles = [
                    Tile(label: "Postbacks", value: NumberText.grouped(totals.postbacks), id: "postbacks"),
                    Tile(label: "Installs", value: NumberText.grouped(totals.installs), id: "installs"),
                    Tile(label: "Redownloads", value: NumberText.grouped(totals.redownloads), id: "redownloads"),
                    Tile(label: "Re-engagements", value: NumberText.grouped(totals.reengagements), id: "reengagements"),
                    Tile(label: "Non-winning", value: NumberText.grouped(totals.nonWinning), id: "non-winning"),
                    Tile(label: "Null rate", value: Self.percent(totals.nullValues, of: totals.postbacks), id: "null-rate"),
                    // The store's counters, not the view's: a refused body or a repeat is not stored, so it has no
                    // day or network to filter by. Postbacks the collector refused, not impressions a device refused.
                    Tile(label: "Postbacks refused by the collector (all time)",
                         value: NumberText.grouped(stats.rejected + stats.rejectedDropped), id: "refused"),
                    Tile(label: "Duplicate rate (all time)",
                         value: Self.percent(stats.duplicates, of: stats.duplicates + stats.postbacks), id: "duplicate-rate"),
                ]
            }
            panels += try await installsPerDay(builder, view: view)
        case .values:
            panels += try await valuePanels(builder)
        case .windows:
            panels += try await windowPanels(builder)
        case .frameworks:
            panels += try await frameworkPanels(builder)
        case .refused:
            let stats = try await reader.stats()
            if stats.rejected + stats.rejectedDropped == 0 {
                emptyNote = "No postback has been refused: every body this store received verified and was stored."
            } else {
                tiles = stats.rejectedByStatus.sorted { $0.key < $1.key }.map {
                    Tile(label: $0.key, value: NumberText.grouped($0.value), id: "refused-\($0.key)")
                } + [Tile(label: "removed by the size cap", value: NumberText.grouped(stats.rejectedDropped), id: "refused-dropped")]
            }
            refusals = try await reader.latestRefusals(limit: latestRefusals).map {
                Refusal(receivedAt: $0.receivedAt, status: $0.status, field: $0.field ?? "", reason: $0.reason, endpoint: $0.endpoint)
            }
        case .integrity:
            let stats = try await reader.stats()
            if stats.conflicts == 0 {
                emptyNote = "No repeat has differed from the postback it repeats: every value Apple does not sign arrived the same each time."
            }
            tiles = [
                Tile(label: "Conflicts (all time)", value: NumberText.grouped(stats.conflicts), id: "conflicts"),
                Tile(label: "Conflict rate among duplicates (all time)",
                     value: Self.percent(stats.conflicts, of: stats.duplicates), id: "conflict-rate"),
            ]
            conflicts = try await reader.latestConflicts(limit: latestRefusals).map(Self.conflict)
        case .relay:
            let section = try await Self.relaySection(reader: reader, delivery: relay, deadLetterLimit: latestRefusals, now: now)
            tiles = section.tiles
            emptyNote = section.emptyNote
            relaySection = section
        case .live:
            let stats = try await reader.stats()
            tiles = [
                Tile(label: "Stored postbacks", value: NumberText.grouped(stats.postbacks), id: "live-postbacks"),
                Tile(label: "Refused", value: NumberText.grouped(stats.rejected + stats.rejectedDropped), id: "live-refused"),
                Tile(label: "Stored per second", value: "…", id: "live-rate"),
                Tile(label: "Refused per second", value: "…", id: "live-refused-rate"),
            ]
        }
        // Refusals and the live counters belong to the whole store (a refused body has no trusted network, campaign
        // or window): those pages show no filters, and their links drop the view's.
        let showsFilters = page.isFiltered
        let networks = Self.options(known.networks.map { ($0, $0) }, selected: view.network, noun: "ad network")
        let campaigns = Self.options(known.campaigns.campaigns.map { ($0.id, names.label($0.id, $0.label)) },
                                     selected: view.campaign, noun: "campaign")
        return PageContent(
            title: page.title,
            nav: DashboardPage.allCases.map {
                NavItem(title: $0.title, href: $0.path + ($0.isFiltered ? URLQuery.encode(view.queryItems) : ""), current: $0 == page)
            },
            showsFilters: showsFilters,
            from: view.from ?? "", to: view.to ?? "",
            networks: networks, campaigns: campaigns,
            networkOptions: showsFilters ? Self.html(networks) : "", campaignOptions: showsFilters ? Self.html(campaigns) : "",
            windows: [("", "all"), ("0", "0 (days 0–2)"), ("1", "1 (days 3–7)"), ("2", "2 (days 8–35)")].map {
                Option(value: $0.0, label: $0.1, selected: (view.window ?? "") == $0.0)
            },
            stacks: DashboardView.Stack.allCases.map { Option(value: $0.rawValue, label: $0.rawValue, selected: view.stack == $0) },
            showsStack: page == .overview,
            tiles: tiles, emptyNote: emptyNote, panels: panels, refusals: refusals, hasRefusals: !refusals.isEmpty,
            conflicts: conflicts, hasConflicts: !conflicts.isEmpty, unfilteredNote: page.unfilteredNote,
            integrityCommand: page == .integrity ? "skan report --integrity --format csv" : nil,
            relayRows: relaySection?.rows ?? [], hasRelayRows: !(relaySection?.rows.isEmpty ?? true),
            deadLetters: relaySection?.deadLetters ?? [], hasDeadLetters: !(relaySection?.deadLetters.isEmpty ?? true),
            relayNote: relaySection?.note, relayRetryCommand: relaySection?.retryCommand,
            isLive: page == .live, hasCharts: hasCharts, missingCharts: !hasCharts)
    }

    /// A kept conflict as the page's table shows it; the template escapes every cell.
    static func conflict(_ summary: ConflictSummary) -> Conflict {
        Conflict(receivedAt: summary.receivedAt, network: summary.network, dedupID: summary.dedupID,
                 window: String(summary.window), differing: summary.differing.joined(separator: ", "),
                 first: summary.firstValues, again: summary.repeatValues,
                 firstFrom: "\(summary.firstSide) \(summary.firstEndpoint)" + (summary.firstClientAddress.map { " from \($0)" } ?? ""),
                 againFrom: "\(summary.repeatSide) \(summary.repeatEndpoint)" + (summary.clientAddress.map { " from \($0)" } ?? ""))
    }

    /// "all", then `known` (value and label), with the view's value selected; a value the store does not hold (a
    /// hand-edited link) is kept as an option saying so, so that the form shows what the page counts.
    static func options(_ known: [(value: String, label: String)], selected: String?, noun: String) -> [Option] {
        var options = [Option(value: "", label: "all", selected: selected == nil)]
        options += known.map { Option(value: $0.value, label: $0.label, selected: $0.value == selected) }
        if let selected, !known.contains(where: { $0.value == selected }) {
            options.append(Option(value: selected, label: "\(selected) (no such \(noun) stored)", selected: true))
        }
        return options
    }

    /// `options` as HTML `<option>` elements, every value and label escaped.
    static func html(_ options: [Option]) -> String {
        var html = ""
        html.reserveCapacity(options.count * 48)
        for option in options {
            html += "<option value=\"\(HTMLText.escape(option.value))\"\(option.selected ? " selected" : "")>"
            html += HTMLText.escape(option.label) + "</option>"
        }
        return html
    }

    /// `part` of `whole` as a percentage with one decimal, or "—" when `whole` is zero: a rate over nothing is not 0 %.
    static func percent(_ part: Int, of whole: Int) -> String {
        guard whole > 0 else { return "—" }
        return percent(Double(part) / Double(whole))
    }

    static func percent(_ fraction: Double) -> String {
        let tenths = Int((fraction * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10) %"
    }
}
