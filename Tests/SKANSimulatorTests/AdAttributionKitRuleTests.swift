import Foundation
import SKANCore
import Testing
@testable import SKANSimulator

/// Rules of AdAttributionKit devices read against Apple's text (issue 39), as properties over 16 seeds.
@Suite("AdAttributionKit rules read against Apple's text")
struct AdAttributionKitRuleTests {
    typealias Device = AdAttributionKitDeviceTests

    /// The re-engagement sample with more re-engagements: no install cooldown, conversions that may not overlap.
    static func reengagementSetup() throws -> CampaignSetup {
        try Fixtures.setup("aak-re-engagement.json") { campaign in
            campaign.advertisedApp.infoPlist.overlappingConversions = false
            campaign.advertisedApp.infoPlist.configurations.installCooldownHours = 0
        }
    }

    @Test("a new conversion removes the earlier conversions' windows that have not begun: none of them is sent",
          arguments: Device.seeds)
    func unstartedWindowsRemoved(seed: UInt64) throws {
        let setup = try Self.reengagementSetup()
        let ends = ConversionWindows.Timing.standard.ends
        var checked = 0, laterWindows = 0
        for outcome in Device.outcomes(setup, seed: seed) {
            let starts = Set(outcome.postbacks.filter { $0.conversionType == .reengagement }.map(\.launchAt))
            for planned in outcome.postbacks {
                let window = try #require(planned.fields.window)
                let windowStart = planned.launchAt + (window == 0 ? 0 : ends[window - 1])
                // Every re-engagement started after this postback's conversion began (and so superseded it).
                for start in starts where start > planned.launchAt {
                    checked += 1
                    if window > 0 { laterWindows += 1 }
                    #expect(windowStart <= start, "window \(window) of the conversion of \(planned.launchAt) begins at \(windowStart), after the re-engagement of \(start)")
                }
            }
        }
        #expect(checked > 20 && laterWindows > 0, "\(checked) postbacks of superseded conversions, \(laterWindows) of a later window")
    }

    @Test("a window open at a new conversion is prepared then; one not begun is gone; with overlap both are kept")
    func supersedeOneConversion() {
        let day = SimulatedTime.day
        var windows = ConversionWindows(firstLaunch: 0)
        windows.update(fine: 5, coarse: .high, lock: false, at: day)
        windows.supersede(at: 3 * day)
        #expect(windows.update(fine: nil, coarse: .low, lock: false, at: 8 * day) == .closed, "the third window never opens")
        let snapshots = windows.finish()
        #expect(snapshots.count == 2)
        #expect(snapshots.map(\.preparedAt) == [2 * day, 3 * day] && snapshots[1].locked && snapshots[1].coarse == .high)
        // Superseded before its first launch: nothing to lock or remove.
        var later = ConversionWindows(firstLaunch: 10 * day)
        later.supersede(at: 9 * day)
        #expect(later.finish().count == 3)
    }

    @Test("a tap before the app was ever opened is its first launch, not a re-engagement", arguments: Device.seeds)
    func noReengagementBeforeFirstLaunch(seed: UInt64) throws {
        let setup = try Self.reengagementSetup()
        var reengagements = 0
        for outcome in Device.outcomes(setup, seed: seed) where !outcome.hadApp {
            guard let launch = outcome.launchAt else { continue }
            for planned in outcome.postbacks where planned.conversionType == .reengagement {
                reengagements += 1
                #expect(planned.launchAt > launch, "a re-engagement at \(planned.launchAt), first launch at \(launch)")
            }
        }
        #expect(reengagements > 0)
    }

    @Test("ignoreInteractionType inside install, as Apple places it, ignores that interaction; beside it still works")
    func ignoreInteractionPlacement() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.campaign("aak-mixed.json")))
        let sample = try JSONSerialization.jsonObject(with: data)
        let entry = AdAttributionKitCampaignFileTests.plist + ["AttributionWindows", "rival22.adattributionkit"]
        let beside = CampaignFileTests.setting(["install": ["click": 7], "ignoreInteractionType": "view"],
                                                   at: entry[...], in: sample)
        for (name, json) in [("inside", sample), ("beside", beside)] {
            let campaign = try CampaignFile.decode(try JSONSerialization.data(withJSONObject: json), source: "campaign.json")
            let configurations = campaign.advertisedApp.infoPlist.configurations
            #expect(configurations.installWindow(network: "rival22.adattributionkit", interaction: .view) == nil, "\(name)")
            #expect(configurations.installWindow(network: "rival22.adattributionkit", interaction: .click) == 7 * SimulatedTime.day, "\(name)")
        }
    }
}
