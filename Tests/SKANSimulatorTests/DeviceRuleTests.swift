import Foundation
import SKANCore
import Testing
@testable import SKANSimulator

/// Device rules checked as properties over many seeds of the sample campaigns.
@Suite("Device rules hold across seeds")
struct DeviceRuleTests {
    static let seeds: [UInt64] = Array(1...24)
    static let devicesPerSeed = 400

    static func outcomes(_ setup: CampaignSetup, seed: UInt64) -> [DeviceSimulator.Outcome] {
        Simulation(setup: setup, seed: seed, devices: devicesPerSeed).outcomes(ofChunk: 0)
    }

    @Test("no ≤3.0 value ever decreases, and every ≤3.0 postback leaves 24–48 h after the last increase", arguments: seeds)
    func timerRules(seed: UInt64) throws {
        let setup = try Fixtures.setup("skan-3.0-game.json")
        var postbacks = 0
        for outcome in Self.outcomes(setup, seed: seed) {
            #expect(zip(outcome.acceptedValues, outcome.acceptedValues.dropFirst()).allSatisfy { $0 < $1 })
            for planned in outcome.postbacks {
                let lastChange = try #require(planned.lastChange)
                let delay = planned.sendAt - lastChange
                #expect((24 * SimulatedTime.hour...48 * SimulatedTime.hour).contains(delay))
                if planned.isWinning, let value = planned.skadnetwork!.conversionValue {
                    #expect(value == outcome.acceptedValues.last)
                }
                postbacks += 1
            }
        }
        #expect(postbacks > 0)
    }

    @Test("every 4.0 postback falls inside its window's delay, and no fine value comes after the first", arguments: seeds)
    func windowRules(seed: UInt64) throws {
        let setup = try Fixtures.setup("skan-4.0-subscription.json")
        var windowsSeen = Set<Int>()
        for outcome in Self.outcomes(setup, seed: seed) {
            guard let install = outcome.installAt else { continue }
            for planned in outcome.postbacks {
                let index = try #require(planned.skadnetwork!.postbackSequenceIndex)
                windowsSeen.insert(index)
                #expect(ConversionWindows.delays[index].contains(planned.sendAt - planned.preparedAt))
                // Prepared no later than the window's end (a lock prepares it earlier), after install.
                #expect(planned.preparedAt > install)
                #expect(planned.preparedAt - install <= ConversionWindows.ends[index] + 3 * SimulatedTime.hour)
                if index > 0 { #expect(planned.skadnetwork!.conversionValue == nil) }
                #expect(planned.skadnetwork!.conversionValue == nil || planned.skadnetwork!.coarseConversionValue == nil)
            }
        }
        #expect(windowsSeen == [0, 1, 2])
    }

    @Test("privacy tiers decide digits, source fields and values", arguments: seeds)
    func tierRules(seed: UInt64) throws {
        let setup = try Fixtures.setup("skan-4.0-subscription.json")
        let digits = setup.campaign.settings.digitsByTier
        for outcome in Self.outcomes(setup, seed: seed) {
            for planned in outcome.postbacks {
                let postback = planned.skadnetwork!
                let index = postback.postbackSequenceIndex ?? 0
                let sourceIdentifier = try #require(postback.sourceIdentifier)
                let hasSource = postback.sourceAppID != nil || postback.sourceDomain != nil
                guard planned.isWinning else {
                    #expect(index == 0 && !hasSource && postback.conversionValue == nil && postback.coarseConversionValue == nil)
                    #expect(sourceIdentifier.count == 2)
                    continue
                }
                if index > 0 {
                    #expect(planned.tier > 0, "tier 0 gets only the first postback")
                    #expect(sourceIdentifier.count == 2 && !hasSource && postback.conversionValue == nil)
                    continue
                }
                #expect(sourceIdentifier.count == digits[planned.tier])
                #expect(hasSource == (planned.tier == 3))
                switch planned.tier {
                case 0: #expect(postback.conversionValue == nil && postback.coarseConversionValue == nil)
                case 1: #expect(postback.conversionValue == nil)
                default: #expect(postback.coarseConversionValue == nil)
                }
            }
        }
    }

    @Test("3.0 tiers: source-app-id and value only above the threshold, never in non-winning postbacks", arguments: seeds)
    func thresholdRules(seed: UInt64) throws {
        let setup = try Fixtures.setup("skan-3.0-game.json")
        for outcome in Self.outcomes(setup, seed: seed) {
            for planned in outcome.postbacks {
                let above = planned.isWinning && PrivacyTier.meetsThreshold(planned.tier)
                if !above {
                    #expect(planned.skadnetwork!.sourceAppID == nil && planned.skadnetwork!.conversionValue == nil)
                } else {
                    #expect(planned.skadnetwork!.sourceAppID != nil)
                }
            }
        }
    }

    @Test("exactly one winner per attributed install, at most five non-winning, each from another network", arguments: seeds)
    func winnerRules(seed: UInt64) throws {
        for name in Fixtures.sampleNames {
            let setup = try Fixtures.setup(name)
            for outcome in Self.outcomes(setup, seed: seed) {
                let attributed = outcome.installAt != nil && outcome.unattributed == nil
                let firsts = outcome.postbacks.filter { ($0.skadnetwork!.postbackSequenceIndex ?? 0) == 0 }
                let winners = firsts.filter(\.isWinning)
                #expect(winners.count == (attributed ? 1 : 0))
                let losers = firsts.filter { !$0.isWinning }
                #expect(losers.count <= DeviceSimulator.maximumNonWinning)
                let networks = losers.map(\.network)
                #expect(Set(networks).count == networks.count)
                if let winner = winners.first { #expect(!networks.contains(winner.network)) }
            }
        }
    }

    @Test("versions before 3.0 send no non-winning postbacks", arguments: [ImpressionVersion.v1_0, .v2_0, .v2_1, .v2_2])
    func noNonWinningBefore30(version: ImpressionVersion) throws {
        let setup = try Fixtures.olderSetup(version)
        for seed in Self.seeds.prefix(6) {
            let outcomes = Self.outcomes(setup, seed: seed)
            #expect(outcomes.flatMap(\.postbacks).allSatisfy { $0.isWinning && $0.skadnetwork!.didWin == nil })
            #expect(outcomes.contains { !$0.postbacks.isEmpty })
        }
    }

    @Test("StoreKit-rendered ads beat more recent view-through ones from 2.2; the most recent wins before")
    func fidelityDecidesFrom22() throws {
        for version in [ImpressionVersion.v2_1, .v3_0] {
            let setup = try Fixtures.setup("race-storekit-vs-view-through.json") { campaign in
                campaign.version = version
                if version < .v2_2 { campaign.ads.removeAll { $0.kind == .viewThrough } }
            }
            let outcomes = Self.seeds.prefix(4).flatMap { Self.outcomes(setup, seed: $0) }
            let winners = outcomes.flatMap(\.postbacks).filter(\.isWinning)
            #expect(!winners.isEmpty)
        }
        // From 2.2: whenever a StoreKit-rendered ad was kept, a view-through ad never wins.
        let setup = try Fixtures.setup("race-storekit-vs-view-through.json")
        var storeKitWins = 0, viewWins = 0
        for seed in Self.seeds.prefix(4) {
            for outcome in Self.outcomes(setup, seed: seed) {
                guard let winner = outcome.winningAd else { continue }
                let kind = setup.campaign.ads[winner].kind
                if kind == .storeKitRendered { storeKitWins += 1 } else { viewWins += 1 }
                if kind == .viewThrough {
                    #expect(outcome.postbacks.allSatisfy { $0.skadnetwork!.fidelityType == 0 || !$0.isWinning })
                    #expect(!outcome.postbacks.contains { !$0.isWinning && $0.skadnetwork!.fidelityType == 1 },
                            "a kept StoreKit-rendered impression would have won")
                }
            }
        }
        #expect(storeKitWins > 0 && viewWins > 0)
    }

    @Test("devices refuse every kind of broken impression")
    func brokenImpressionsAreRefused() throws {
        for name in Fixtures.sampleNames {
            let setup = try Fixtures.setup(name)
            for pool in setup.pools {
                #expect(pool.valid.allSatisfy { $0.refusal == nil })
                #expect(pool.faulty.count == 5)
                for entry in pool.faulty {
                    let expected: ImpressionPool.Refusal = ["id out of range", "view-through below 2.2"].contains(entry.fault) ? .badFields : .badSignature
                    #expect(entry.refusal == expected, "\(name): \(entry.fault ?? "")")
                }
            }
        }
    }

    @Test("installs outside the window or outside the App Store are counted, not attributed")
    func unattributableInstallsAreCounted() throws {
        let setup = try Fixtures.setup("skan-3.0-game.json") { campaign in
            campaign.audience.appStoreRate = 0.5
            campaign.audience.installDelayHours = 0...24 * 40
        }
        var summary = SimulationSummary()
        for outcome in Self.outcomes(setup, seed: 7) { summary.add(outcome) }
        #expect(summary.unattributed[DeviceSimulator.Unattributed.notAppStore.rawValue] > 0)
        #expect(summary.unattributed[DeviceSimulator.Unattributed.noImpressionInWindow.rawValue] > 0)
        #expect(summary.installs == summary.attributedInstalls + summary.unattributed.reduce(0, +))
    }
}
