import Foundation
import SKANCore
import Testing
@testable import SKANSimulator

/// AdAttributionKit on the simulated devices (spec §8.3), as properties over many seeds of the two samples.
@Suite("AdAttributionKit devices")
struct AdAttributionKitDeviceTests {
    static let seeds: [UInt64] = Array(1...16)
    static let devices = 600

    static func outcomes(_ setup: CampaignSetup, seed: UInt64) -> [DeviceSimulator.Outcome] {
        Simulation(setup: setup, seed: seed, devices: devices).outcomes(ofChunk: 0)
    }

    @Test("a planned postback's neutral fields are its body's, in either framework, as the collector will store them")
    func neutralFields() throws {
        let setup = try Fixtures.setup("aak-mixed.json")
        var seen: Set<Framework> = []
        for outcome in Self.outcomes(setup, seed: 3) {
            for planned in outcome.postbacks {
                let fields = planned.fields
                seen.insert(planned.framework)
                #expect(fields.network == setup.campaign.adNetworks[planned.network].id)
                switch planned.body {
                case .skadnetwork(let postback):
                    #expect(fields.dedupID == postback.transactionID && fields.window == postback.postbackSequenceIndex)
                    #expect(fields.frameworkVersion == "4.0" && fields.conversionValue == postback.conversionValue)
                case .adAttributionKit(let postback):
                    #expect(fields.dedupID == postback.postbackIdentifier && fields.window == postback.postbackSequenceIndex)
                    #expect(fields.frameworkVersion == nil && fields.coarseValue == postback.coarseConversionValue)
                }
                #expect(planned.isWinning == (fields.didWin ?? true))
            }
        }
        #expect(seen == Set(Framework.allCases))
    }

    /// The postbacks of one conversion: an install's, or one re-engagement's (keyed by its start).
    static func conversions(_ outcome: DeviceSimulator.Outcome) -> [[PlannedPostback]] {
        let installs = outcome.postbacks.filter { $0.conversionType != .reengagement }
        let reengagements = Dictionary(grouping: outcome.postbacks.filter { $0.conversionType == .reengagement }, by: \.launchAt)
        return (installs.isEmpty ? [] : [installs]) + reengagements.keys.sorted().map { reengagements[$0]! }
    }

    @Test("one winner per conversion across both frameworks; each window once; a network hears once", arguments: seeds)
    func oneWinner(seed: UInt64) throws {
        var mixedWinners: Set<Framework> = []
        for name in ["aak-mixed.json", "aak-re-engagement.json"] {
            let setup = try Fixtures.setup(name)
            for outcome in Self.outcomes(setup, seed: seed) {
                for conversion in Self.conversions(outcome) {
                    let winning = conversion.filter(\.isWinning)
                    #expect(Set(winning.map(\.network)).count <= 1)
                    #expect(Set(winning.map(\.framework)).count <= 1)
                    #expect(Set(winning.compactMap(\.fields.window)).count == winning.count)
                    let losing = conversion.filter { !$0.isWinning }
                    #expect(Set(losing.map(\.network)).count == losing.count)
                    #expect(losing.count <= 5)
                    if let network = winning.first?.network { #expect(!losing.contains { $0.network == network }) }
                    if name == "aak-mixed.json", let framework = winning.first?.framework { mixedWinners.insert(framework) }
                }
                if outcome.winningAd == nil && outcome.reengagedAds.isEmpty { #expect(outcome.postbacks.allSatisfy { !$0.isWinning }) }
            }
        }
        // Both frameworks win installs in the mixed sample: the contest is real.
        #expect(mixedWinners == [.skadnetwork, .adAttributionKit])
    }

    @Test("a click beats a view whatever the framework; views the app ignores for a network never count", arguments: seeds)
    func clickBeatsView(seed: UInt64) throws {
        let setup = try Fixtures.setup("aak-mixed.json")
        let rival = try #require(setup.campaign.adNetworks.firstIndex { $0.id == "rival22.adattributionkit" })
        for outcome in Self.outcomes(setup, seed: seed) {
            let install = outcome.postbacks.filter { $0.conversionType != .reengagement }
            func interaction(_ planned: PlannedPostback) -> AdInteraction? {
                switch planned.body {
                case .skadnetwork(let postback): postback.fidelityType == 1 ? .click : .view
                case .adAttributionKit(let postback): postback.adInteractionType
                }
            }
            if install.contains(where: { $0.isWinning && interaction($0) == .view }) {
                #expect(!install.contains { !$0.isWinning && interaction($0) == .click })
            }
            #expect(!install.contains { $0.network == rival && interaction($0) == .view })
        }
    }

    @Test("the app's configured view window decides whether a 30–40 hour old view can win")
    func configuredWindows() throws {
        func run(viewDays: Int?) throws -> SimulationSummary {
            let setup = try Fixtures.setup("aak-mixed.json") { campaign in
                var view = campaign.ads[4]
                view.network = "adnet1.skadnetwork"
                campaign.ads = [view]
                campaign.audience.installDelayHours = 30...40
                campaign.audience.impressionsPerDevice = 1...1
                campaign.audience.viewSeconds = nil
                campaign.audience.appStoreRate = 1
                campaign.advertisedApp.infoPlist.configurations.global.viewDays = viewDays
            }
            var summary = SimulationSummary()
            for outcome in Self.outcomes(setup, seed: 3) { summary.add(outcome) }
            return summary
        }
        let standard = try run(viewDays: nil)
        #expect(standard.installs > 50)
        #expect(standard.attributedInstalls == 0)
        #expect(standard.unattributed[DeviceSimulator.Unattributed.noImpressionInWindow.rawValue] == standard.installs)
        let longer = try run(viewDays: 2)
        #expect(longer.attributedInstalls == longer.installs)
        #expect(longer.aakPostbacks > 0)
    }

    @Test("a view shorter than 2 seconds never counts, in either framework")
    func shortViews() throws {
        func viewPostbacks(seconds: ClosedRange<Double>) throws -> Int {
            let setup = try Fixtures.setup("aak-mixed.json") { $0.audience.viewSeconds = seconds }
            return Self.outcomes(setup, seed: 4).flatMap(\.postbacks).filter { planned in
                switch planned.body {
                case .skadnetwork(let postback): postback.fidelityType == 0
                case .adAttributionKit(let postback): postback.adInteractionType == .view
                }
            }.count
        }
        #expect(try viewPostbacks(seconds: 0...1.99) == 0)
        #expect(try viewPostbacks(seconds: 2...5) > 20)
    }

    @Test("re-engagements: only taps on eligible ads by people with the app; cooldowns, limits, no non-winning postbacks", arguments: seeds)
    func reengagementRules(seed: UInt64) throws {
        let setup = try Fixtures.setup("aak-re-engagement.json")
        let campaign = setup.campaign
        let cooldowns = campaign.advertisedApp.infoPlist.configurations
        var started = 0
        for outcome in Self.outcomes(setup, seed: seed) {
            for ad in outcome.reengagedAds {
                #expect(campaign.ads[ad].eligibleForReengagement && campaign.ads[ad].interaction == .click)
            }
            #expect(outcome.hadApp || outcome.installAt != nil || outcome.reengagedAds.isEmpty)
            let reengagement = outcome.postbacks.filter { $0.conversionType == .reengagement }
            #expect(reengagement.allSatisfy { $0.isWinning })
            let starts = Set(reengagement.map(\.launchAt)).sorted()
            for (earlier, later) in zip(starts, starts.dropFirst()) {
                #expect(later - earlier >= Int64(cooldowns.reengagementCooldownHours) * SimulatedTime.hour)
            }
            if let installAt = outcome.installAt, let first = starts.first {
                #expect(first - installAt >= Int64(cooldowns.installCooldownHours) * SimulatedTime.hour)
            }
            for start in starts {
                #expect(starts.filter { start - $0 >= 0 && start - $0 < 30 * SimulatedTime.day }.count <= campaign.settings.reengagementsPerAppMonth)
            }
            started += outcome.reengagedAds.count
        }
        #expect(started > 20)
    }

    @Test("a new re-engagement locks the earlier conversion's windows unless the app allows overlapping conversions")
    func overlappingConversions() throws {
        func latestInstallPreparation(overlap: Bool) throws -> (locked: Int, total: Int) {
            let setup = try Fixtures.setup("aak-re-engagement.json") { campaign in
                campaign.advertisedApp.infoPlist.overlappingConversions = overlap
                campaign.advertisedApp.infoPlist.configurations.installCooldownHours = 0
            }
            var locked = 0, total = 0
            for seed in UInt64(1)...6 {
                for outcome in Self.outcomes(setup, seed: seed) where outcome.installAt != nil {
                    let starts = outcome.postbacks.filter { $0.conversionType == .reengagement }.map(\.launchAt)
                    guard let firstReengagement = starts.min() else { continue }
                    for planned in outcome.postbacks where planned.conversionType != .reengagement {
                        total += 1
                        if planned.preparedAt <= firstReengagement { locked += 1 }
                    }
                }
            }
            return (locked, total)
        }
        let locking = try latestInstallPreparation(overlap: false)
        #expect(locking.total > 0 && locking.locked == locking.total)
        let overlapping = try latestInstallPreparation(overlap: true)
        #expect(overlapping.locked < overlapping.total)
    }

    @Test("conversion tags send an update to the conversion that caused it; without them, to the most recent", arguments: [true, false])
    func conversionTags(tags: Bool) throws {
        let setup = try Fixtures.setup("aak-re-engagement.json") { campaign in
            campaign.settings.conversionTags = tags
            campaign.advertisedApp.infoPlist.overlappingConversions = true
            campaign.privacyTiers = [0, 1, 0, 0]
        }
        let rules = try #require(setup.campaign.conversionSchema.first { $0.coarse == .high })
        let day = SimulatedTime.day, t0 = setup.campaign.start
        // The install's own late event (day 3, its second window) comes after a re-engagement started on day 1.
        let install = AAKConversion(start: t0, installAt: t0, kind: .download, winner: 0, losers: [], tier: 1,
                                    events: [(t0, nil), (t0 + 3 * day, rules)], firstCall: t0, timing: .standard)
        let reengagement = AAKConversion(start: t0 + day, installAt: t0 + day, kind: .reengagement, winner: 0, losers: [],
                                         tier: 1, events: [(t0 + day + 1, setup.campaign.conversionSchema[0])],
                                         firstCall: nil, timing: .standard)
        var outcome = DeviceSimulator.Outcome()
        var random = SeededRandom(seed: 1)
        DeviceSimulator(setup: setup, seed: 1).planAdAttributionKit([install, reengagement], outcome: &outcome, random: &random)
        func coarse(_ type: ConversionType, window: Int) -> CoarseValue? {
            outcome.postbacks.first { $0.conversionType == type && $0.fields.window == window }?.fields.coarseValue
        }
        #expect(coarse(.download, window: 1) == (tags ? .high : nil))
        #expect(coarse(.reengagement, window: 1) == (tags ? .low : .high))
    }

    @Test("tier rules for AdAttributionKit fields: publisher and country only in a top-tier first postback, marketplace not at tier 0", arguments: seeds)
    func tierRules(seed: UInt64) throws {
        let setup = try Fixtures.setup("aak-mixed.json")
        var topTier = 0
        for outcome in Self.outcomes(setup, seed: seed) {
            for planned in outcome.postbacks {
                guard let postback = planned.adAttributionKit else { continue }
                let top = planned.isWinning && planned.tier == 3 && postback.postbackSequenceIndex == 0
                #expect((postback.publisherItemIdentifier != nil) == top)
                // Apple: "omits this property from Tier 0 postbacks" (README, simulator choices).
                #expect((postback.marketplaceIdentifier != nil) == (planned.isWinning && planned.tier > 0 && postback.postbackSequenceIndex == 0))
                #expect((postback.countryCode != nil) == top)
                if top { topTier += 1; #expect(["US", "GB", "DE"].contains(postback.countryCode!)) }
                if postback.conversionValue != nil { #expect(planned.tier >= 2 && postback.postbackSequenceIndex == 0 && planned.isWinning) }
                if !planned.isWinning { #expect(postback.conversionValue == nil && postback.coarseConversionValue == nil) }
                if planned.tier == 0 { #expect(postback.postbackSequenceIndex == 0) }
                #expect(postback.kid == "simulated-apple-aak/0")
                #expect((2...4).contains(postback.sourceIdentifier.count))
            }
        }
        #expect(topTier > 0)
    }

    @Test("Developer Mode: windows end 3, 6 and 9 minutes after the conversion; postbacks leave 5–10 minutes later")
    func developerMode() throws {
        let setup = try Fixtures.setup("aak-re-engagement.json") { $0.settings.developerMode = true }
        var checked = 0
        for outcome in Self.outcomes(setup, seed: 5) {
            for planned in outcome.postbacks {
                let window = try #require(planned.fields.window)
                #expect(planned.preparedAt - planned.launchAt <= Int64(3 * (window + 1)) * SimulatedTime.minute)
                #expect((5 * SimulatedTime.minute...10 * SimulatedTime.minute).contains(planned.sendAt - planned.preparedAt))
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    @Test("every AdAttributionKit postback verifies under the simulated keys and not under Apple's; runs are byte-identical per seed")
    func verifiesAndRepeats() throws {
        for name in ["aak-mixed.json", "aak-re-engagement.json"] {
            let setup = try Fixtures.setup(name)
            let records = try Fixtures.records(setup, seed: 11, devices: 1500)
            let simulated = AttributionVerifier(keyRing: Fixtures.simulatedAppleRing(setup))
            let apple = AttributionVerifier(keyRing: KeyRing.apple)
            var aak = 0
            for record in records {
                guard case .valid(let verified) = simulated.verify(record.postback) else {
                    Issue.record("\(name): a simulated postback does not verify: \(String(decoding: record.postback, as: UTF8.self).prefix(200))")
                    continue
                }
                if verified.framework == .adAttributionKit {
                    aak += 1
                    if case .valid = apple.verify(record.postback) { Issue.record("\(name): Apple's keys accepted a simulated postback") }
                }
            }
            #expect(aak > 100)
            let again = try Fixtures.records(setup, seed: 11, devices: 1500)
            #expect(again == records)
            #expect(try Fixtures.records(setup, seed: 12, devices: 1500) != records)
        }
    }

    @Test("devices refuse broken AdAttributionKit impressions and count them")
    func refusedImpressions() throws {
        let setup = try Fixtures.setup("aak-re-engagement.json") { $0.settings.refusedImpressionRate = 0.5 }
        let faults = setup.pools[0].faulty.map { ($0.fault ?? "", $0.refusal) }
        #expect(faults.map(\.0) == ["bad signature", "DER signature", "kid not the network", "source-identifier out of range"])
        #expect(faults.map(\.1) == [.badSignature, .badSignature, .badSignature, .badFields])
        var summary = SimulationSummary()
        for outcome in Self.outcomes(setup, seed: 2) { summary.add(outcome) }
        #expect(summary.refusedBadSignature > 0 && summary.refusedBadFields > 0)
    }
}

/// Bad AdAttributionKit fields in a campaign are named with their path and what was expected.
@Suite("AdAttributionKit campaign files")
struct AdAttributionKitCampaignFileTests {
    typealias BadField = CampaignFileTests.BadField
    static let plist = ["advertised-app", "info-plist", "AdAttributionKitConfigurations"]

    static let badFields: [BadField] = [
        BadField(path: ["ads", "1", "framework"], value: "aak", expected: "$.ads[1].framework: expected one of \"skadnetwork\", \"adattributionkit\", got \"aak\""),
        BadField(path: ["ads", "2", "kind"], value: "web", expected: "$.ads[2].kind: expected storekit-rendered (a click) or view-through (a view): AdAttributionKit has no web ads"),
        BadField(path: ["ads", "2", "source-identifier"], value: 5, expected: "$.ads[2].source-identifier: expected an integer 10...9999 (2 to 4 digits), got 5"),
        BadField(path: ["ads", "4", "re-engagement-rate"], value: 0.2, expected: "$.ads[4].re-engagement-rate: expected 0 unless the ad is a click with \"eligible-for-re-engagement\": true"),
        BadField(path: ["ads", "0", "eligible-for-re-engagement"], value: true, expected: "$.ads[0].eligible-for-re-engagement: expected false or absent: only AdAttributionKit ads re-engage"),
        BadField(path: ["apple-keys", "aak-kid"], value: "apple-cas-identifier/0", expected: "$.apple-keys.aak-kid: expected a kid of your own"),
        BadField(path: plist + ["AttributionCooldown", "install-cooldown-hours"], value: 721, expected: "$.advertised-app.info-plist.AdAttributionKitConfigurations.AttributionCooldown.install-cooldown-hours: expected an integer 0...720, got 721"),
        BadField(path: plist + ["AttributionCooldown", "reengagement-cooldown-hours"], value: -1, expected: "$.advertised-app.info-plist.AdAttributionKitConfigurations.AttributionCooldown.reengagement-cooldown-hours: expected an integer 0...720, got -1"),
        BadField(path: plist + ["AttributionWindows", "global", "install", "view"], value: 8, expected: "$.advertised-app.info-plist.AdAttributionKitConfigurations.AttributionWindows.global.install.view: expected an integer 1...7, got 8"),
        BadField(path: plist + ["AttributionWindows", "global", "ignoreInteractionType"], value: "view", expected: "$.advertised-app.info-plist.AdAttributionKitConfigurations.AttributionWindows.global.ignoreInteractionType: expected ignoreInteractionType only in an ad network's entry"),
        BadField(path: plist + ["AttributionWindows", "global", "install", "ignoreInteractionType"], value: "view", expected: "$.advertised-app.info-plist.AdAttributionKitConfigurations.AttributionWindows.global.install.ignoreInteractionType: expected ignoreInteractionType only in an ad network's entry"),
        BadField(path: plist + ["AttributionWindows", "rival22.adattributionkit", "install", "bogus"], value: 1, expected: "$.advertised-app.info-plist.AdAttributionKitConfigurations.AttributionWindows.rival22.adattributionkit.install.bogus: expected one of \"click\", \"view\", \"ignoreInteractionType\""),
        BadField(path: plist + ["AttributionWindows", "rival22.adattributionkit", "ignoreInteractionType"], value: "click", expected: "$.advertised-app.info-plist.AdAttributionKitConfigurations.AttributionWindows.rival22.adattributionkit.ignoreInteractionType: expected the same value as install.ignoreInteractionType, or only one of them"),
        BadField(path: ["audience", "countries"], value: ["usa": 1], expected: "$.audience.countries: expected two-letter upper-case country codes such as \"US\", got \"usa\""),
        BadField(path: ["apple-keys", "aak"], value: NSNull(), expected: "$.apple-keys: expected an \"aak\" key"),
    ]

    @Test("each bad AdAttributionKit field is named with its path and what was expected", arguments: badFields)
    func badFieldNamesPath(_ bad: BadField) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.campaign("aak-mixed.json")))
        let sample = try JSONSerialization.jsonObject(with: data)
        let changed = try JSONSerialization.data(withJSONObject: CampaignFileTests.setting(bad.value, at: bad.path[...], in: sample))
        let error = #expect(throws: SimulatorError.self) { try CampaignFile.decode(changed, source: "campaign.json") }
        #expect(error?.reason.hasPrefix("campaign.json: \(bad.expected)") == true, "\(error?.reason ?? "")")
    }

    @Test("the WWDC25 spelling of the re-engagement cooldown is read too")
    func cooldownAlias() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.campaign("aak-mixed.json")))
        let sample = try JSONSerialization.jsonObject(with: data)
        let changed = try JSONSerialization.data(withJSONObject: CampaignFileTests.setting(
            48, at: (Self.plist + ["AttributionCooldown", "reengagement-cooldown-hours"])[...], in: sample))
        let campaign = try CampaignFile.decode(changed, source: "campaign.json")
        #expect(campaign.advertisedApp.infoPlist.configurations.reengagementCooldownHours == 48)
        #expect(campaign.advertisedApp.infoPlist.configurations.installWindow(network: "rival22.adattributionkit", interaction: .view) == nil)
        #expect(campaign.advertisedApp.infoPlist.configurations.installWindow(network: "rival22.adattributionkit", interaction: .click) == 7 * SimulatedTime.day)
        #expect(campaign.advertisedApp.infoPlist.configurations.installWindow(network: "adnet1.skadnetwork", interaction: .view) == 2 * SimulatedTime.day)
    }
}
