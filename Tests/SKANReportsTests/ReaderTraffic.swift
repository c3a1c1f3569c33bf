import Foundation
import SKANCore
import SKANStore
import SKANTestSupport

/// Stored postbacks shaped like a network's traffic, for comparing readers: every column a report groups or filters
/// by takes many values, absent ones included. Seeded, so every run and every engine gets the same rows.
///
/// The mix follows `skan bench postbacks`' traffic shape (8 networks; skewed popularity of 300 source identifiers cut
/// to 2, 3 or 4 digits; windows 0, 1, 2; a fine value only in window 0 at four digits, else a coarse value or none;
/// a tenth non-winning), with the versions before 4.0 (campaign ids, no did-win before 3.0), AdAttributionKit
/// (marketplaces, re-engagements), web ads, countries, and arrivals over 45 days at every hour.
enum ReaderTraffic {
    /// A small seeded generator (SplitMix64): the same draws on every platform.
    struct Draws {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
        mutating func chance(_ p: Double) -> Bool { unit() < p }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
    }

    /// `count` accepted postbacks, a few repeats of them, and some refusals.
    static func entries(count: Int = 2_000, seed: UInt64 = 34) -> [StoreEntry] {
        let template = TestPostbacks.verified()
        var draws = Draws(state: seed)
        var entries: [StoreEntry] = []
        let start = Date(timeIntervalSince1970: 1_772_323_200)  // 2026-03-01, so install days fall in February too
        for index in 0..<count {
            let framework: Framework = draws.chance(0.15) ? .adAttributionKit : .skadnetwork
            let version: String? = framework == .adAttributionKit ? nil : draws.pick(["4.0", "4.0", "4.0", "4.0", "3.0", "2.2"])
            let window = version == "4.0" || framework == .adAttributionKit ? [0, 0, 0, 1, 1, 2][draws.below(6)] : nil
            let digits = [2, 3, 4, 4, 4][draws.below(5)]
            let source = String(1000 + Int(300 * pow(draws.unit(), 2)))
            let didWin: Bool? = version == "2.2" ? nil : !draws.chance(0.1)
            let fine = didWin != false && (window ?? 0) == 0 && (digits == 4 || window == nil) ? draws.below(64) : nil
            let coarse: CoarseValue? = fine != nil || didWin == false || window == nil ? nil : draws.pick([nil, .low, .medium, .high])
            let reengagement = framework == .adAttributionKit && draws.chance(0.1)
            let conversionType: ConversionType = reengagement ? .reengagement : draws.chance(0.1) ? .redownload : .download
            let web = draws.chance(0.05)
            let fields = AttributionFields(
                network: "net\(draws.below(8)).skadnetwork", dedupID: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012x", index))!
                    .uuidString.lowercased(),
                appID: draws.pick([525463029, 525463029, 310633997]),
                campaign: version == "4.0" || framework == .adAttributionKit ? nil : 1 + draws.below(100),
                sourceIdentifier: version == "4.0" || framework == .adAttributionKit ? String(source.prefix(digits)) : nil,
                sourceAppID: web || didWin == false ? nil : draws.pick([1_234_567, 7_654_321, 1_111_111_111]),
                sourceDomain: web ? draws.pick(["example.com", "news.example", "Ünïcode.example"]) : nil,
                marketplace: framework == .adAttributionKit ? draws.pick(["com.apple.AppStore", "eu.example.store", nil]) : nil,
                window: window, didWin: didWin, conversionType: conversionType,
                interaction: draws.pick([AdInteraction.view, .click, .click, nil]), frameworkVersion: version,
                statesVersion: version != nil, conversionValue: fine, coarseValue: coarse,
                countryCode: draws.pick(["US", "DE", "JP", nil]), signature: "MEUC-\(index)")
            let attribution = VerifiedAttribution(framework: framework, fields: fields, keyName: template.0.keyName,
                                                  scheme: template.0.scheme, note: nil, detail: template.0.detail)
            let receivedAt = start.addingTimeInterval(Double(draws.below(45 * 24)) * 3600 + Double(draws.below(3_600_000)) / 1000)
            let accepted = AcceptedPostback(attribution: attribution, rawBody: Array("{\"n\":\(index)}".utf8),
                                            receivedAt: receivedAt, endpoint: "/postbacks")
            entries.append(.accepted(accepted))
            if index % 97 == 0 { entries.append(.accepted(accepted)) }
            if index % 151 == 0 {
                entries.append(.rejected(RejectedPostback(
                    status: draws.pick(["malformed", "invalid-signature"]), field: draws.pick(["version", nil]),
                    reason: "refused \(index): " + String(repeating: "x", count: draws.below(400)), version: "4.0",
                    transactionID: "t\(index)", adNetworkID: nil, rawBody: Array(repeating: 0x7B, count: draws.below(6000)),
                    receivedAt: receivedAt, endpoint: "/postbacks")))
            }
        }
        return entries
    }

    /// Every query shape the product asks of a reader: each report field alone on both day bases, the groupings
    /// of the dashboard and the README, value splits (a report with a schema), date ranges, and filters on numbers,
    /// booleans, text and absent values; each read from the rollups where they cover it and from every row.
    static let queries: [AggregateQuery] = {
        typealias Q = AggregateQuery
        var queries: [Q] = []
        for dimension in Q.Dimension.allCases {
            queries.append(Q(dimensions: [dimension]))
            queries.append(Q(dimensions: [dimension], day: .install))
        }
        queries += [
            Q(dimensions: []),
            Q(dimensions: [], splitsByValue: true),
            Q(dimensions: [.network, .campaign, .day]),
            Q(dimensions: [.day, .campaign, .framework]),
            Q(dimensions: [.day], day: .install, from: "2026-03-05", to: "2026-03-20"),
            Q(dimensions: [.network, .window, .tier], splitsByValue: true),
            Q(dimensions: [.source, .country, .conversionType], day: .install, splitsByValue: true),
            Q(dimensions: [.framework, .version, .app]),
            Q(dimensions: [.fidelity, .interaction, .marketplace, .didWin, .redownload]),
            Q(dimensions: [.day, .network], from: "2026-03-10"),
            Q(dimensions: [.campaign], to: "2026-03-07"),
            Q(dimensions: [.day], filters: [.init(.window, equals: "0")]),
            Q(dimensions: [.network], filters: [.init(.didWin, equals: "false"), .init(.framework, equals: "skadnetwork")]),
            Q(dimensions: [], filters: [.init(.coarseValue, equals: nil)]),
            Q(dimensions: [.campaign], filters: [.init(.tier, equals: "4"), .init(.interaction, equals: "click")]),
            Q(dimensions: [.window], filters: [.init(.conversionValue, equals: nil)]),
            Q(dimensions: [.day, .network], from: "2026-03-02", to: "2026-03-30", filters: [.init(.campaign, equals: "1001")]),
            Q(dimensions: [.day], day: .install, filters: [.init(.day, equals: "2026-03-03")]),
            Q(dimensions: [.network], filters: [.init(.source, equals: "Ünïcode.example")], splitsByValue: true),
        ]
        return queries + queries.map { query in
            var everyRow = query
            everyRow.allowsRollups = false
            return everyRow
        }
    }()
}
