import SKANReports

/// The panels of each page, in a campaign manager's words: campaigns as the source identifier's hierarchy, tiers
/// 0–3 as the glossary names them, and every postback a chart leaves out named in its table.
extension PageContent {
    /// Campaigns the installs chart stacks one by one; one colour each, and one for the others, in the palette's eight.
    static let campaignsShown = 7

    static func installsPerDay(_ builder: PanelBuilder, view: DashboardView) async throws -> [Panel] {
        if view.stack == .network {
            let report = try await builder.report([.day, .adNetwork])
            let (labels, series) = PanelBuilder.matrix(report, value: { Double($0.installs) },
                                                       allCategories: PanelBuilder.everyDay(report))
            return [builder.panel("installs-by-day", "Installs per day by ad network",
                                  note: "Winning first postbacks of downloads and redownloads, by the day they arrived (UTC).",
                                  report: report,
                                  chart: ChartSpec(kind: .bar, stacked: true, labels: labels, series: series, axis: "installs"))]
        }
        // Ranked from each identifier's totals, then only the drawn campaigns read day by day (CampaignRanking).
        let hierarchy = builder.known.campaigns
        let ranking = CampaignRanking(identifiers: try await builder.report([.campaign]).rows, hierarchy: hierarchy)
        let folding = ranking.ranked.count > campaignsShown
        let kept = Array(ranking.ranked.prefix(campaignsShown))
        let other = "other (\(ranking.ranked.count - campaignsShown))"
        var keptDays: [ReportRow] = []
        for campaign in kept {
            var days: [String?: ReportRow] = [:]
            for id in ranking.identifiers[campaign] ?? [] {
                // One identifier in place of the view's campaign: the rollups' campaign index finds its rows alone.
                let request = try ReportRequest(fields: [.day, .campaign], from: view.from, to: view.to,
                                                filters: view.filters(campaign: nil) + [ReportFilter(.campaign, equals: id)])
                for row in try await ReportBuilder.run(request, on: builder.reader).rows where row.keys[1] == id {
                    days[row.keys[0], default: ReportRow(keys: [row.keys[0], campaign])].add(row)
                }
            }
            keptDays += days.values
        }
        let request = try view.request(fields: [.day, .campaign])
        let report = Report(request: request, rows: CampaignRanking.rows(
            keptDays: keptDays, days: try await builder.report([.day]).rows, folding: folding, other: other,
            hierarchy: hierarchy))
        let order = kept.map { $0 ?? "(none)" } + (folding ? [other] : [])
        let (labels, series) = PanelBuilder.matrix(report, value: { Double($0.installs) },
                                                   allCategories: PanelBuilder.everyDay(report))
        // The legend names each campaign the map names; the table and the CSV keep the identifiers.
        let names = builder.names
        let ranked = series.sorted { (order.firstIndex(of: $0.0) ?? .max) < (order.firstIndex(of: $1.0) ?? .max) }
            .map { (names.label($0.0, $0.0), $0.1) }
        let perDay = builder.panel(
            "installs-by-day", "Installs per day by campaign",
            note: "Winning first postbacks of downloads and redownloads, by the day they arrived (UTC): the "
                + "\(campaignsShown) campaigns with the most installs in this view, the others summed. A campaign counts "
                + "its source identifier at every tier (5239 with 239 and 39); the CSV has each identifier.",
            report: report,
            chart: ChartSpec(kind: .bar, stacked: true, labels: labels, series: ranked, axis: "installs"),
            table: PanelTable(report))
        return [perDay, campaignTable(ranking, report: report, builder)]
    }

    /// The most campaigns the campaigns table lists.
    static let campaignRowsShown = 100

    /// One row per campaign, ordered as numbers, with its identifiers by digits on demand: from the installs
    /// chart's own ranking, so it costs no query.
    static func campaignTable(_ ranking: CampaignRanking, report: Report, _ builder: PanelBuilder) -> Panel {
        let totals = ranking.totals, members = ranking.members
        // The campaigns with the most installs, in numeric order: a network's thousands of campaigns made a page of
        // megabytes that took seconds to draw; the rest are one row pointing to the CSV, which has every one.
        let shown = totals.keys.sorted { (totals[$0]!.installs, totals[$0]!.postbacks, $1) > (totals[$1]!.installs, totals[$1]!.postbacks, $0) }
            .prefix(campaignRowsShown)
        // A name column only where a campaign map exists; the names of the shown rows alone are looked up.
        let named = !builder.names.isEmpty
        var rows = shown.sorted(by: CampaignHierarchy.numericOrder).map { campaign -> [PanelTable.Cell] in
            let row = totals[campaign]!
            let ids = (members[campaign] ?? [:]).sorted { $0.key.count != $1.key.count ? $0.key.count > $1.key.count : $0.key < $1.key }
            let detail = ids.map { "\($0.key) (\($0.key.count) digits): \(NumberText.grouped($0.value))" }.joined(separator: " · ")
            let name = named ? [PanelTable.Cell(text: builder.names.name(campaign) ?? "(unmapped)", numeric: false)] : []
            return [PanelTable.Cell(text: campaign.isEmpty ? "(none)" : campaign, numeric: false)] + name
                + [PanelTable.Cell(text: ids.count == 1 ? ids[0].key : "\(ids.count) identifiers", numeric: false,
                                   detail: ids.count == 1 ? nil : detail)]
                + [row.postbacks, row.installs, row.nonWinning].map { PanelTable.Cell(text: NumberText.grouped($0), numeric: true) }
        }
        if totals.count > shown.count {
            let rest = totals.count - shown.count
            rows.append([PanelTable.Cell(text: "\(NumberText.grouped(rest)) more", numeric: false)]
                        + (named ? [PanelTable.Cell(text: "", numeric: false)] : [])
                        + [PanelTable.Cell(text: "fewer installs: every campaign is in the CSV", numeric: false)])
        }
        return builder.panel("campaigns", "Campaigns",
                             note: "Each campaign once, with the source identifiers its postbacks carried at each privacy tier "
                                + "(open a row for them): tiers 0 and 1 keep the last 2 digits, tiers 2 and 3 up to all 4.",
                             report: report, chart: nil,
                             table: PanelTable(columns: ["campaign"] + (named ? ["campaign_name"] : [])
                                                    + ["source identifiers", "postbacks", "installs", "non_winning"],
                                               cells: rows))
    }

    static func valuePanels(_ builder: PanelBuilder) async throws -> [Panel] {
        var panels: [Panel] = []
        let fine = try await builder.report([.conversionValue])
        let counts = Dictionary(fine.rows.compactMap { row in row.keys[0].map { ($0, Double(row.postbacks)) } }, uniquingKeysWith: +)
        let values = (0...63).map(String.init)
        let without = fine.rows.first { $0.keys[0] == nil } ?? ReportRow(keys: [nil])
        let total = fine.rows.reduce(0) { $0 + $1.postbacks }
        var fineRows = fine.rows.filter { $0.keys[0] != nil }.map { [$0.keys[0]!, String($0.postbacks)] }
        fineRows += [["coarse value only (not drawn)", String(without.postbacks - without.nullValues)],
                     ["no value (not drawn)", String(without.nullValues)]]
        panels.append(builder.panel(
            "fine-values", "Fine conversion values (0–63)",
            note: "The chart draws the \(NumberText.grouped(total - without.postbacks)) of \(NumberText.grouped(total)) postbacks "
                + "with a fine value; the table's last two rows count the others: a coarse value only, or no value (null is not zero).",
            report: fine,
            chart: ChartSpec(kind: .bar, stacked: false, labels: values,
                             series: [("postbacks", values.map { counts[$0] ?? 0 })], axis: "postbacks"),
            table: PanelTable(columns: ["conversion_value", "postbacks"], rows: fineRows, keys: 1)))

        let coarse = try await builder.report([.window, .coarseValue])
        var coarseRows: [[String]] = []
        var cells: [String: [String: Double]] = [:]
        var windows: [String] = []
        for row in coarse.rows {
            let window = row.keys[0] ?? "(none)"
            if !windows.contains(window) { windows.append(window) }
            let parts: [(String, Int)] = row.keys[1].map { [($0, row.postbacks)] }
                ?? [("fine value instead", row.postbacks - row.nullValues), ("no value", row.nullValues)]
            for (name, count) in parts where count > 0 {
                cells[name, default: [:]][window, default: 0] += Double(count)
                coarseRows.append([row.keys[0] ?? "", name, String(count)])
            }
        }
        let coarseNames = ["low", "medium", "high", "fine value instead", "no value"].filter { cells[$0] != nil }
            + cells.keys.filter { !["low", "medium", "high", "fine value instead", "no value"].contains($0) }.sorted()
        panels.append(builder.panel(
            "coarse-values", "Coarse values by postback window",
            note: "low, medium and high per window; a postback without one carried a fine value instead, or no value at all.",
            report: coarse,
            chart: ChartSpec(kind: .bar, stacked: true, labels: windows.map { "window \($0)" },
                             series: coarseNames.map { name in (name, windows.map { cells[name]?[$0] ?? 0 }) }, axis: "postbacks"),
            table: PanelTable(columns: ["postback_window", "coarse_value", "postbacks"], rows: coarseRows, keys: 2)))

        let daily = try await builder.report([.day])
        let rate = PanelBuilder.series(daily, "null rate") { $0.nullRate }
        panels.append(builder.panel("null-rate", "Null rate per day",
                                    note: "Share of postbacks with neither a fine nor a coarse value.", report: daily,
                                    chart: ChartSpec(kind: .line, stacked: false, labels: rate.labels,
                                                     series: [("null rate", rate.values)], axis: "null rate", percent: true)))
        if let schema = builder.schema {
            // With `skan report --modeled`'s columns: estimates for the null-valued winning postbacks, in columns and a
            // line of their own named modeled, never added to the counted ones.
            let decoded = try await builder.report([.day], schema: schema, modeled: true)
            let revenue = PanelBuilder.series(decoded, "revenue") { ($0.revenueLow + $0.revenueHigh) / 2 }
            let modeled = decoded.rows.map { row in Double(decoded.modeledRevenueMid(row) ?? "") ?? 0 }
            panels.append(builder.panel("revenue", "Decoded events and revenue per day",
                                        note: "Values decoded through the conversion schema; revenue is the middle of each range. "
                                            + "The modeled_ columns and the modeled line are estimates for the postbacks that "
                                            + "carried no value, scaled from the day's valued ones: never part of the counted "
                                            + "columns (empty: no valued postback that day to scale from).",
                                        report: decoded,
                                        chart: ChartSpec(kind: .line, stacked: false, labels: revenue.labels,
                                                         series: [("revenue (mid)", revenue.values),
                                                                  ("modeled revenue (mid), estimate", modeled)],
                                                         axis: "revenue")))
        }
        return panels
    }

    /// The privacy tiers, in the glossary's 0–3, as far as a stored postback shows them (spec §3.3): in window 0 a
    /// fine value or more than 2 digits means tier 2 or 3 (the source app or domain, which the rollups do not keep,
    /// tells those apart), a coarse value alone tier 1, neither tier 0; windows 1 and 2 look the same at tiers 1–3 and
    /// are not sent at tier 0. Non-winning postbacks carry no tier.
    static func tier(window: String?, didWin: String?, fine: String?, coarse: String?, digits: String?) -> String {
        guard let window else { return "before 4.0" }
        if didWin == "false" { return "non-winning" }
        if window != "0" { return "tier 1, 2 or 3" }
        if fine != nil || (digits != nil && digits != "2") { return "tier 2 or 3" }
        return coarse != nil ? "tier 1" : "tier 0"
    }

    static let tierOrder = ["tier 0", "tier 1", "tier 2 or 3", "tier 1, 2 or 3", "non-winning", "before 4.0"]

    static func windowPanels(_ builder: PanelBuilder) async throws -> [Panel] {
        // Every field from the rollup without campaigns: a few rows a day, whatever the store's size.
        let detail = try await builder.report([.window, .didWin, .conversionValue, .coarseValue, .tier])
        var windows: [String] = []
        var cells: [String: [String: Int]] = [:]
        for row in detail.rows {
            let window = row.keys[0] ?? "(none)"
            if !windows.contains(window) { windows.append(window) }
            let name = tier(window: row.keys[0], didWin: row.keys[1], fine: row.keys[2], coarse: row.keys[3], digits: row.keys[4])
            cells[name, default: [:]][window, default: 0] += row.postbacks
        }
        let names = tierOrder.filter { cells[$0] != nil }
        let tierRows = windows.flatMap { window in
            names.compactMap { name in cells[name]?[window].map { [window, name, String($0)] } }
        }
        let winning = try await builder.report([.window, .didWin])
        // Winning first, so that it takes the palette's first colour.
        let won = PanelBuilder.matrix(winning, value: { Double($0.postbacks) },
                                      seriesName: { $0 == "true" ? "winning" : $0 == "false" ? "non-winning" : "before 3.0" })
        let wonOrder = ["winning", "non-winning", "before 3.0"]
        return [
            builder.panel("tiers", "Postbacks by window and privacy tier",
                          note: "Tiers 0–3 as Apple's crowd anonymity gives them: tier 0 keeps 2 digits of the source identifier "
                            + "and no value, tier 1 adds a coarse value, tiers 2 and 3 keep up to 4 digits and the fine value "
                            + "(tier 3 adds the source app or domain). Later windows carry 2 digits and a coarse value at "
                            + "tiers 1–3; non-winning postbacks have no tier.",
                          report: detail,
                          chart: ChartSpec(kind: .bar, stacked: true, labels: windows.map { "window \($0)" },
                                           series: names.map { name in (name, windows.map { Double(cells[name]?[$0] ?? 0) }) },
                                           axis: "postbacks"),
                          table: PanelTable(columns: ["postback_window", "tier", "postbacks"], rows: tierRows, keys: 2)),
            builder.panel("winning", "Winning against non-winning, by window",
                          note: "Non-winning postbacks: the network's ad was seen but another won the install.",
                          report: winning,
                          chart: ChartSpec(kind: .bar, stacked: true, labels: won.labels.map { "window \($0)" },
                                           series: won.series.sorted { (wonOrder.firstIndex(of: $0.0) ?? 9) < (wonOrder.firstIndex(of: $1.0) ?? 9) },
                                           axis: "postbacks")),
        ]
    }

    static func frameworkPanels(_ builder: PanelBuilder) async throws -> [Panel] {
        let report = try await builder.report([.framework, .conversionType])
        let frameworks = Set(report.rows.compactMap { $0.keys[0] })
        let only = frameworks.count == 1 ? frameworks.first : nil
        let alone = only.map { " Only \($0 == "adattributionkit" ? "AdAttributionKit" : "SKAdNetwork") postbacks in this view: "
            + "no \($0 == "adattributionkit" ? "SKAdNetwork" : "AdAttributionKit") postback was stored." } ?? ""
        let (labels, series) = PanelBuilder.matrix(report, value: { Double($0.postbacks) })
        let interaction = try await builder.report([.framework, .interaction])
        let split = PanelBuilder.matrix(interaction, value: { Double($0.installs) })
        return [
            builder.panel("frameworks", "Postbacks by framework and conversion type",
                          note: "SKAdNetwork against AdAttributionKit; re-engagements are AdAttributionKit's only." + alone,
                          report: report,
                          chart: ChartSpec(kind: .bar, stacked: true, labels: labels, series: series, axis: "postbacks")),
            builder.panel("interactions", "Installs by framework and interaction",
                          note: "Click (StoreKit-rendered or tapped) against view-through." + alone, report: interaction,
                          chart: ChartSpec(kind: .bar, stacked: true, labels: split.labels, series: split.series, axis: "installs")),
        ]
    }
}
