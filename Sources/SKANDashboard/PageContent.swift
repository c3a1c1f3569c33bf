import SKANReports
import SKANStore

/// What the `page` template renders: navigation, the view's filter form, and the page's tiles and panels.
struct PageContent {
    struct NavItem { let title: String; let href: String; let current: Bool }
    struct Tile { let label: String; let value: String; let id: String }
    struct Option { let value: String; let label: String; let selected: Bool }
    struct Refusal { let receivedAt: String; let status: String; let field: String; let reason: String; let endpoint: String }

    let title: String
    let nav: [NavItem]
    let from: String
    let to: String
    let network: String
    let campaign: String
    let windows: [Option]
    let stacks: [Option]
    let showsStack: Bool
    let tiles: [Tile]
    let panels: [Panel]
    let refusals: [Refusal]
    let hasRefusals: Bool
    let isLive: Bool
    let hasCharts: Bool
    let missingCharts: Bool

    static func build(_ page: DashboardPage, view: DashboardView, reader: any PostbackReader, schema: ConversionSchema?,
                      latestRefusals: Int, hasCharts: Bool) async throws -> PageContent {
        let builder = PanelBuilder(reader: reader, view: view, schema: schema)
        var tiles: [Tile] = []
        var panels: [Panel] = []
        var refusals: [Refusal] = []
        switch page {
        case .overview:
            let totals = try await builder.totals()
            let stats = try await reader.stats()
            tiles = [
                Tile(label: "Postbacks", value: NumberText.grouped(totals.postbacks), id: "postbacks"),
                Tile(label: "Installs", value: NumberText.grouped(totals.installs), id: "installs"),
                Tile(label: "Redownloads", value: NumberText.grouped(totals.redownloads), id: "redownloads"),
                Tile(label: "Re-engagements", value: NumberText.grouped(totals.reengagements), id: "reengagements"),
                Tile(label: "Non-winning", value: NumberText.grouped(totals.nonWinning), id: "non-winning"),
                Tile(label: "Null rate", value: Self.percent(totals.nullRate), id: "null-rate"),
                Tile(label: "Refused (all time)", value: NumberText.grouped(stats.rejected + stats.rejectedDropped), id: "refused"),
                // The store's counters, not the view's: a repeat is not stored, so it has no day or network to filter by.
                Tile(label: "Duplicate rate (all time)", value: Self.percent(stats.duplicateRate), id: "duplicate-rate"),
            ]
            panels.append(try await installsPerDay(builder, view: view))
        case .values:
            panels += try await valuePanels(builder)
        case .windows:
            panels += try await windowPanels(builder)
        case .frameworks:
            let report = try await builder.report([.framework, .conversionType])
            let (labels, series) = PanelBuilder.matrix(report, value: { Double($0.postbacks) })
            panels.append(builder.panel("frameworks", "Postbacks by framework and conversion type",
                                        note: "SKAdNetwork against AdAttributionKit; re-engagements are AdAttributionKit's only.",
                                        report: report,
                                        chart: ChartSpec(kind: .bar, stacked: true, labels: labels, series: series, axis: "postbacks")))
            let interaction = try await builder.report([.framework, .interaction])
            let split = PanelBuilder.matrix(interaction, value: { Double($0.installs) })
            panels.append(builder.panel("interactions", "Installs by framework and interaction",
                                        note: "Click (StoreKit-rendered or tapped) against view-through.", report: interaction,
                                        chart: ChartSpec(kind: .bar, stacked: true, labels: split.labels, series: split.series, axis: "installs")))
        case .refused:
            let stats = try await reader.stats()
            tiles = stats.rejectedByStatus.sorted { $0.key < $1.key }.map {
                Tile(label: $0.key, value: NumberText.grouped($0.value), id: "refused-\($0.key)")
            } + [Tile(label: "removed by the size cap", value: NumberText.grouped(stats.rejectedDropped), id: "refused-dropped")]
            refusals = try await reader.latestRefusals(limit: latestRefusals).map {
                Refusal(receivedAt: $0.receivedAt, status: $0.status, field: $0.field ?? "", reason: $0.reason, endpoint: $0.endpoint)
            }
        case .live:
            let stats = try await reader.stats()
            tiles = [
                Tile(label: "Stored postbacks", value: NumberText.grouped(stats.postbacks), id: "live-postbacks"),
                Tile(label: "Refused", value: NumberText.grouped(stats.rejected + stats.rejectedDropped), id: "live-refused"),
                Tile(label: "Stored per second", value: "…", id: "live-rate"),
                Tile(label: "Refused per second", value: "…", id: "live-refused-rate"),
            ]
        }
        let query = view.queryItems
        return PageContent(
            title: page.title,
            nav: DashboardPage.allCases.map { NavItem(title: $0.title, href: $0.path + URLQuery.encode(query), current: $0 == page) },
            from: view.from ?? "", to: view.to ?? "", network: view.network ?? "", campaign: view.campaign ?? "",
            windows: [("", "all"), ("0", "0 (days 0–2)"), ("1", "1 (days 3–7)"), ("2", "2 (days 8–35)")].map {
                Option(value: $0.0, label: $0.1, selected: (view.window ?? "") == $0.0)
            },
            stacks: DashboardView.Stack.allCases.map { Option(value: $0.rawValue, label: $0.rawValue, selected: view.stack == $0) },
            showsStack: page == .overview,
            tiles: tiles, panels: panels, refusals: refusals, hasRefusals: !refusals.isEmpty, isLive: page == .live,
            hasCharts: hasCharts, missingCharts: !hasCharts)
    }

    static func installsPerDay(_ builder: PanelBuilder, view: DashboardView) async throws -> Panel {
        if view.stack == .network {
            let report = try await builder.report([.day, .adNetwork])
            let (labels, series) = PanelBuilder.matrix(report, value: { Double($0.installs) },
                                                       allCategories: PanelBuilder.everyDay(report))
            return builder.panel("installs-by-day", "Installs per day by ad network",
                                 note: "Winning first postbacks of downloads and redownloads, by the day they arrived (UTC).",
                                 report: report,
                                 chart: ChartSpec(kind: .bar, stacked: true, labels: labels, series: series, axis: "installs"))
        }
        let full = try await builder.report([.day, .campaign])
        let (report, order) = PanelBuilder.keepingTop(campaignsShown, of: full, weight: \.installs)
        let (labels, series) = PanelBuilder.matrix(report, value: { Double($0.installs) },
                                                   allCategories: PanelBuilder.everyDay(report))
        let ranked = series.sorted { (order.firstIndex(of: $0.0) ?? .max) < (order.firstIndex(of: $1.0) ?? .max) }
        return builder.panel("installs-by-day", "Installs per day by campaign",
                             note: "Winning first postbacks of downloads and redownloads, by the day they arrived (UTC): the "
                                + "\(campaignsShown) campaigns or source identifiers with the most installs in this view, the "
                                + "others summed; the CSV has every one.",
                             report: report,
                             chart: ChartSpec(kind: .bar, stacked: true, labels: labels, series: ranked, axis: "installs"))
    }

    /// Campaigns the installs chart stacks one by one; one colour each, and one for the others, in the palette's eight.
    static let campaignsShown = 7

    static func valuePanels(_ builder: PanelBuilder) async throws -> [Panel] {
        var panels: [Panel] = []
        let fine = try await builder.report([.conversionValue])
        let counts = Dictionary(fine.rows.compactMap { row in row.keys[0].map { ($0, Double(row.postbacks)) } }, uniquingKeysWith: +)
        let values = (0...63).map(String.init)
        panels.append(builder.panel("fine-values", "Fine conversion values (0–63)",
                                    note: "Postbacks by fine value; the empty row counts postbacks without one (null is not zero).",
                                    report: fine,
                                    chart: ChartSpec(kind: .bar, stacked: false, labels: values,
                                                     series: [("postbacks", values.map { counts[$0] ?? 0 })], axis: "postbacks")))
        let coarse = try await builder.report([.window, .coarseValue])
        let split = PanelBuilder.matrix(coarse, value: { Double($0.postbacks) }, seriesName: { $0 ?? "none" })
        panels.append(builder.panel("coarse-values", "Coarse values by postback window",
                                    note: "low, medium, high per window; none when the postback carried a fine value or no value.",
                                    report: coarse,
                                    chart: ChartSpec(kind: .bar, stacked: true, labels: split.labels.map { "window \($0)" },
                                                     series: split.series, axis: "postbacks")))
        let daily = try await builder.report([.day])
        let rate = PanelBuilder.series(daily, "null rate") { $0.nullRate }
        panels.append(builder.panel("null-rate", "Null rate per day",
                                    note: "Share of postbacks with neither a fine nor a coarse value.", report: daily,
                                    chart: ChartSpec(kind: .line, stacked: false, labels: rate.labels,
                                                     series: [("null rate", rate.values)], axis: "null rate", percent: true)))
        if let schema = builder.schema {
            let decoded = try await builder.report([.day], schema: schema)
            let revenue = PanelBuilder.series(decoded, "revenue") { ($0.revenueLow + $0.revenueHigh) / 2 }
            panels.append(builder.panel("revenue", "Decoded events and revenue per day",
                                        note: "Values decoded through the conversion schema; revenue is the middle of each range.",
                                        report: decoded,
                                        chart: ChartSpec(kind: .line, stacked: false, labels: revenue.labels,
                                                         series: [("revenue (mid)", revenue.values)], axis: "revenue")))
        }
        return panels
    }

    static func windowPanels(_ builder: PanelBuilder) async throws -> [Panel] {
        let tiers = try await builder.report([.window, .tier])
        let split = PanelBuilder.matrix(tiers, value: { Double($0.postbacks) },
                                        seriesName: { $0.map { "\($0) digits" } ?? "no source identifier" })
        let winning = try await builder.report([.window, .didWin])
        let won = PanelBuilder.matrix(winning, value: { Double($0.postbacks) },
                                      seriesName: { $0 == "true" ? "winning" : $0 == "false" ? "non-winning" : "before 3.0" })
        return [
            builder.panel("tiers", "Postbacks by window and privacy tier",
                          note: "The digits of the source identifier the crowd-anonymity tier let through (2, 3 or 4).",
                          report: tiers,
                          chart: ChartSpec(kind: .bar, stacked: true, labels: split.labels.map { "window \($0)" },
                                           series: split.series, axis: "postbacks")),
            builder.panel("winning", "Winning against non-winning, by window",
                          note: "Non-winning postbacks: the network's ad was seen but another won the install.",
                          report: winning,
                          chart: ChartSpec(kind: .bar, stacked: true, labels: won.labels.map { "window \($0)" },
                                           series: won.series, axis: "postbacks")),
        ]
    }

    static func percent(_ fraction: Double) -> String {
        let tenths = Int((fraction * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10) %"
    }
}
