import Foundation
import SKANCore
import Testing
@testable import SKANSimulator

/// The app's first SKAdNetwork call is what ties an install to its ad (spec §6.2, §6.4): without one there is no
/// install notification, and one more than 60 days after install comes too late. Checked over many seeds of
/// both sample versions, with the sample's own call at launch replaced.
@Suite("The app's first call decides attribution")
struct AppCallRuleTests {
    static let seeds: [UInt64] = Array(1...16)
    static let samples = ["skan-3.0-game.json", "skan-4.0-subscription.json"]
    static let devices = 400

    /// One funnel event every launched user does, `hours` after first launch, mapped to a fine and coarse value.
    static func onlyCall(_ campaign: inout Campaign, hours: ClosedRange<Double>, fine: Int = 5) throws {
        let event = #"{"name":"the-call","probability":1,"delay-hours":[\#(hours.lowerBound),\#(hours.upperBound)]}"#
        let rule = #"{"event":"the-call","fine":\#(fine),"coarse":"medium"}"#
        campaign.events = [try JSONDecoder().decode(FunnelEvent.self, from: Data(event.utf8))]
        campaign.conversionSchema = [try JSONDecoder().decode(ConversionRule.self, from: Data(rule.utf8))]
        campaign.settings.registerAtLaunch = false
    }

    static func outcomes(_ setup: CampaignSetup, seed: UInt64) -> [DeviceSimulator.Outcome] {
        Simulation(setup: setup, seed: seed, devices: devices).outcomes(ofChunk: 0)
    }

    @Test("an app that never calls SKAdNetwork gets no postback (§6.2)", arguments: samples)
    func noCallNoPostback(sample: String) throws {
        let setup = try Fixtures.setup(sample) { campaign in
            campaign.settings.registerAtLaunch = false
            campaign.events = []
        }
        var installs = 0, sent = 0
        for seed in Self.seeds {
            for outcome in Self.outcomes(setup, seed: seed) where outcome.installAt != nil {
                installs += 1
                sent += outcome.postbacks.count
                #expect(outcome.postbacks.isEmpty || outcome.unattributed == nil)
            }
        }
        #expect(installs > 100)
        #expect(sent == 0, "\(sent) postbacks from \(installs) installs whose app never called")
    }

    @Test("an update call the device refuses (value out of range) is no call either (§6.1, §6.2)", arguments: samples)
    func refusedCallIsNoCall(sample: String) throws {
        let setup = try Fixtures.setup(sample) { try? Self.onlyCall(&$0, hours: 0...2, fine: 64) }
        var installs = 0, sent = 0
        for seed in Self.seeds.prefix(4) {
            for outcome in Self.outcomes(setup, seed: seed) where outcome.installAt != nil {
                installs += 1
                sent += outcome.postbacks.count
            }
        }
        #expect(installs > 20)
        #expect(sent == 0, "\(sent) postbacks from \(installs) installs whose only call was refused")
    }

    @Test("a first call more than 60 days after install does not attribute (§6.4)", arguments: samples)
    func lateFirstCall(sample: String) throws {
        // 1,450 h after launch is at least 60.4 days after install.
        let setup = try Fixtures.setup(sample) { try? Self.onlyCall(&$0, hours: 1450...1450) }
        var installs = 0, sent = 0
        for seed in Self.seeds {
            for outcome in Self.outcomes(setup, seed: seed) where outcome.installAt != nil {
                installs += 1
                sent += outcome.postbacks.count
                if let call = outcome.firstCallAt, let install = outcome.installAt, outcome.unattributed == nil {
                    #expect(call - install <= DeviceSimulator.firstCallWindow)
                }
            }
        }
        #expect(installs > 100)
        #expect(sent == 0, "\(sent) postbacks from \(installs) installs whose first call came on day 60.4 or later")
    }

    @Test("a ≤3.0 first call just inside 60 days still attributes, its postback after the call", arguments: seeds)
    func callInsideSixtyDays(seed: UInt64) throws {
        // At most 4 h from install to launch, so 1,430 h after launch is inside 60 days (1,440 h) of install.
        let setup = try Fixtures.setup("skan-3.0-game.json") { try? Self.onlyCall(&$0, hours: 1400...1430) }
        var attributed = 0
        for outcome in Self.outcomes(setup, seed: seed) where outcome.installAt != nil && outcome.unattributed == nil {
            attributed += 1
            let winner = try #require(outcome.postbacks.first { $0.isWinning })
            #expect(winner.skadnetwork!.conversionValue == nil || winner.skadnetwork!.conversionValue == 5)
            #expect(winner.preparedAt - (outcome.installAt ?? 0) > 1400 * SimulatedTime.hour)
        }
        #expect(attributed > 0)
    }
}
