import SKANCore

/// How the campaign's devices decide attribution, chosen once from its ads.
///
/// A campaign with AdAttributionKit ads runs on iOS 17.4 or later, where SKAdNetwork and AdAttributionKit
/// impressions meet in one contest (spec §8.3): at most the six most recent impressions are considered, and a
/// click beats a view whatever version signed it. A campaign of SKAdNetwork ads alone keeps the rules of its
/// version (spec §6.4), so its output is what it was before AdAttributionKit existed.
struct DeviceRules: Sendable {
    /// How many of the most recent kept impressions take part in the contest.
    let consideredImpressions: Int
    /// Whether a click (fidelity 1) beats a view (fidelity 0) before recency does.
    let clickBeatsView: Bool
    /// Whether any ad can bring back a person who has the app.
    let reengages: Bool
    /// The windows and delays of AdAttributionKit conversions.
    let aakTiming: ConversionWindows.Timing

    /// AdAttributionKit's limit of impressions considered for one conversion.
    static let aakConsideredImpressions = 6

    init(campaign: Campaign) {
        let mixed = campaign.ads.contains { $0.framework == .adAttributionKit }
        consideredImpressions = mixed ? Self.aakConsideredImpressions : .max
        clickBeatsView = mixed || campaign.version >= .v2_2
        reengages = campaign.ads.contains { $0.reengagementRate > 0 }
        aakTiming = campaign.settings.developerMode ? .developer : .standard
    }
}
