import Foundation
import HummingbirdTesting
import SKANCollector
import SKANCore
import SKANTestSupport
import SKANSimulator
import Testing

/// What `skan simulate` sends is what a collector must take: every ad-network postback of the sample campaigns,
/// posted through the routes, is accepted where the simulated Apple keys are trusted and refused where only
/// Apple's real keys are.
@Suite("Simulated traffic")
struct SimulatedTrafficTests {
    typealias H = CollectorHarness

    static let campaigns = ["skan-3.0-game.json", "skan-4.0-subscription.json", "race-storekit-vs-view-through.json"]

    /// The ad-network postbacks of a small, seeded run of a sample campaign, and a verifier trusting only the
    /// simulated Apple keys that signed them.
    static func traffic(_ campaign: String) throws -> (bodies: [[UInt8]], verifier: AttributionVerifier) {
        let path = TestPostbacks.packageRoot.appendingPathComponent("Samples/campaigns/\(campaign)").path
        let setup = try CampaignFile.load(path: path)
        var bodies: [[UInt8]] = []
        _ = try Simulation(setup: setup, seed: 11, devices: 200).run { record in
            if record.recipient == .adNetwork { bodies.append(record.postback) }
        }
        let ring = KeyRing(setup.applePublicKeys.map { TrustedKey(name: "simulated-apple-\($0.curve)", key: $0) })
        return (bodies, AttributionVerifier(keyRing: ring))
    }

    @Test("accepts every ad-network postback of a simulated campaign where the simulated keys are trusted",
          arguments: campaigns)
    func acceptedWhenTrusted(campaign: String) async throws {
        let (bodies, verifier) = try Self.traffic(campaign)
        #expect(bodies.count >= 20, "the run should produce postbacks to post")
        let replies = try await H.withCollector(verifier: verifier) { collector, client in
            var replies: [String: Int] = [:]
            for body in bodies {
                let reply = try await H.post(client, body, path: CollectorConfiguration.networkPath)
                replies["\(reply.status) \(H.json(reply.body)["status"] as? String ?? reply.body)", default: 0] += 1
            }
            let stats = try await collector.store.stats()
            #expect(stats.postbacks == bodies.count)
            return replies
        }
        #expect(replies == ["200 accepted": bodies.count])
    }

    @Test("refuses the same postbacks as invalid-signature where only Apple's real keys are trusted",
          arguments: campaigns)
    func refusedUnderAppleKeys(campaign: String) async throws {
        let (bodies, _) = try Self.traffic(campaign)
        let replies = try await H.withCollector(verifier: AttributionVerifier(keyRing: .apple)) { collector, client in
            var replies: [String: Int] = [:]
            for body in bodies {
                let reply = try await H.post(client, body, path: CollectorConfiguration.networkPath)
                replies["\(reply.status) \(H.json(reply.body)["status"] as? String ?? reply.body)", default: 0] += 1
            }
            let stats = try await collector.store.stats()
            #expect(stats.postbacks == 0)
            #expect(stats.rejectedByStatus["invalid-signature"] == bodies.count)
            return replies
        }
        #expect(replies == ["400 invalid-signature": bodies.count])
    }
}
