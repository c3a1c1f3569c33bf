import SKANReports

/// The installs chart stacked by campaign, ranked from one row per stored source identifier rather than from every
/// identifier on every day: over the dashboard benchmark's 10,000,000 postbacks the store sent 116,000 rows by day
/// and campaign, most of the page's time (Benchmarks/history/2026-11.md, issue 36), where it sends 3,870 by
/// identifier, then the days of the few campaigns the chart draws (each an indexed read) and the day totals, of which
/// the others are what the drawn campaigns leave. The rows are those the fold of every row by day and campaign made.
struct CampaignRanking {
    /// Each campaign's counts in the view, keyed by the campaign ("" for postbacks without one): the campaigns table.
    private(set) var totals: [String: ReportRow] = [:]
    /// How many postbacks each stored identifier of a campaign carried ("" for none), keyed as ``totals``.
    private(set) var members: [String: [String: Int]] = [:]
    /// The stored identifiers of each campaign (`nil`: postbacks without one), keyed by the campaign.
    private(set) var identifiers: [String?: [String?]] = [:]
    /// The campaigns by installs in the view, most first, then by name (`(none)` for `nil`).
    let ranked: [String?]

    /// The campaigns of `rows`, one per stored identifier (keys: the identifier), each identifier counted as its
    /// campaign in `hierarchy`.
    init(identifiers rows: [ReportRow], hierarchy: CampaignHierarchy) {
        var installs: [String?: Int] = [:]
        for row in rows {
            let id = row.keys[0]
            let campaign = id.map(hierarchy.campaignID(of:))
            totals[campaign ?? "", default: ReportRow(keys: [campaign ?? ""])].add(row)
            members[campaign ?? "", default: [:]][id ?? "", default: 0] += row.postbacks
            identifiers[campaign, default: []].append(id)
            installs[campaign, default: 0] += row.installs
        }
        ranked = installs.sorted { ($1.value, $0.key ?? "(none)") < ($0.value, $1.key ?? "(none)") }.map(\.key)
    }

    /// The chart's rows, by day: each of the first `keep` campaigns of ``ranked`` (`kept`, each day's in the
    /// hierarchy's number order), then, when more campaigns have postbacks in the view, one row of the rest named
    /// `other (N)` on each day they have any. `keptDays` are the kept campaigns' rows (keys: day, campaign); `days`
    /// the view's rows by day alone.
    static func rows(keptDays: [ReportRow], days: [ReportRow], folding: Bool, other: String,
                     hierarchy: CampaignHierarchy) -> [ReportRow] {
        var byDay: [String?: [ReportRow]] = [:]
        for row in keptDays { byDay[row.keys[0], default: []].append(row) }
        var rows: [ReportRow] = []
        for total in days {
            let day = total.keys[0]
            let shown = (byDay[day] ?? []).map { (rank: hierarchy.rank(of: $0.keys[1]), id: $0.keys[1] ?? "", row: $0) }
                .sorted { ($0.rank, $0.id) < ($1.rank, $1.id) }.map(\.row)
            rows += shown
            guard folding else { continue }
            var rest = total
            rest.keys = [day, other]
            for row in shown { rest.subtract(row) }
            // A day on which only the drawn campaigns had postbacks has no row of the others, as before. The reads are
            // separate statements: a postback a collector stores between them can land in a day's total and not yet
            // in its campaign's days, so it shows among the others until the next load.
            if rest.postbacks > 0 { rows.append(rest) }
        }
        return rows
    }
}

extension ReportRow {
    /// Takes `other`'s counts off this row's: the part of a group that `other` is not. Without a schema (the
    /// dashboard's installs chart has none), so events and revenue are left alone.
    mutating func subtract(_ other: ReportRow) {
        postbacks -= other.postbacks
        installs -= other.installs
        redownloads -= other.redownloads
        reengagements -= other.reengagements
        nonWinning -= other.nonWinning
        nullValues -= other.nullValues
    }
}
