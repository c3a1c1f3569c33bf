import Foundation

/// Paths to the package's `Keys/` and `Samples/campaigns/` for the simulator tests.
enum Fixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let keys = packageRoot.appendingPathComponent("Keys")
    static let campaigns = packageRoot.appendingPathComponent("Samples/campaigns")
    static let invalidCampaigns = packageRoot.appendingPathComponent("Tests/SKANSimulatorTests/InvalidCampaigns")

    static func campaign(_ name: String) -> String { campaigns.appendingPathComponent(name).path }
}

import SKANCore
@testable import SKANSimulator

extension Fixtures {
    /// A sample campaign, optionally changed before its keys load (another version, other settings).
    static func setup(_ name: String, change: (inout Campaign) -> Void = { _ in }) throws -> CampaignSetup {
        let path = campaign(name)
        var decoded = try CampaignFile.decode(Data(contentsOf: URL(fileURLWithPath: path)), source: path)
        change(&decoded)
        return try CampaignSetup(campaign: decoded) { (relative: String) throws(SimulatorError) -> String in
            do {
                return try String(contentsOf: campaigns.appendingPathComponent(relative), encoding: .utf8)
            } catch {
                throw SimulatorError(.invalidKey, "cannot read \(relative)")
            }
        }
    }

    /// A 3.0 sample turned into an older version: campaign ids stay, view-through ads become StoreKit-rendered
    /// where the version has none.
    static func olderSetup(_ version: ImpressionVersion) throws -> CampaignSetup {
        try setup("skan-3.0-game.json") { campaign in
            campaign.version = version
            if version < .v2_2 {
                for index in campaign.ads.indices where campaign.ads[index].kind == .viewThrough {
                    campaign.ads[index].kind = .storeKitRendered
                }
            }
        }
    }

    /// The simulated Apple public keys as a ring that trusts nothing else.
    static func simulatedAppleRing(_ setup: CampaignSetup) -> KeyRing {
        KeyRing(setup.trustedKeys)
    }

    static let sampleNames = ["skan-3.0-game.json", "skan-4.0-subscription.json", "race-storekit-vs-view-through.json"]

    /// All records of a small run.
    static func records(_ setup: CampaignSetup, seed: UInt64, devices: Int) throws -> [SimulatedRecord] {
        var records: [SimulatedRecord] = []
        _ = try Simulation(setup: setup, seed: seed, devices: devices).run { records.append($0) }
        return records
    }
}
