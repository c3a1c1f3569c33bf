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
