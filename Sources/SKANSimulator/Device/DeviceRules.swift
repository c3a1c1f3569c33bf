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
    /// The app's AdAttributionKit install windows.
    let configurations: AdAttributionKitConfigurations

    /// AdAttributionKit's limit of impressions considered for one conversion.
    static let aakConsideredImpressions = 6

    init(campaign: Campaign) {
        let mixed = campaign.ads.contains { $0.framework == .adAttributionKit }
        consideredImpressions = mixed ? Self.aakConsideredImpressions : .max
        clickBeatsView = mixed || campaign.version >= .v2_2
        reengages = campaign.ads.contains { $0.reengagementRate > 0 }
        aakTiming = campaign.settings.developerMode ? .developer : .standard
        configurations = campaign.advertisedApp.infoPlist.configurations
    }

    /// How long an impression of `ad` can win an install, by its framework's rules: SKAdNetwork's fixed 30 days
    /// and 24 hours (spec §6.4), or the app's AdAttributionKit configuration (spec §8.3a); `nil` when the app
    /// ignores that interaction for the network.
    func installWindow(for ad: Ad) -> Int64? {
        switch ad.framework {
        case .skadnetwork: ad.kind == .viewThrough ? DeviceSimulator.viewRetention : DeviceSimulator.clickRetention
        case .adAttributionKit: configurations.installWindow(network: ad.network, interaction: ad.interaction)
        }
    }

    /// Whether the device keeps at most ``DeviceSimulator/viewThroughPerSourceApp`` of this ad's views per source
    /// app: SKAdNetwork's rule for view-through impressions.
    func capsViews(of ad: Ad) -> Bool {
        ad.kind == .viewThrough && ad.framework == .skadnetwork
    }
}
