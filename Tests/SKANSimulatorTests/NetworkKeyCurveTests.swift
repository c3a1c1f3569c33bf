import Foundation
import SKANCore
import Testing
@testable import SKANSimulator

/// A campaign's ad network may sign with a P-192 key pair, as networks that registered in mid-2020 still do
/// (spec §1); devices check its impressions with it as with a P-256 one.
@Suite("Ad network keys in campaigns")
struct NetworkKeyCurveTests {
    static let p192Private = "../../Keys/test/p192-network-private-key.pem"
    static let p192Public = "../../Keys/test/p192-network-public-key.pem"

    /// The 3.0 sample with its second network (rival22) on the P-192 test key pair.
    static func setupWithP192Rival() throws -> CampaignSetup {
        try Fixtures.setup("skan-3.0-game.json") { campaign in
            campaign.adNetworks[1].privateKey = p192Private
            campaign.adNetworks[1].publicKey = p192Public
        }
    }

    @Test("a P-192 network's impressions are accepted and its broken ones refused, as a P-256 network's are")
    func p192NetworkImpressions() throws {
        let setup = try Self.setupWithP192Rival()
        let p192Key = try ECPublicKey(text: try String(contentsOf: Fixtures.keys.appendingPathComponent("test/p192-network-public-key.pem"), encoding: .utf8))
        let rivalAds = setup.networkOfAd.indices.filter { setup.networkOfAd[$0] == 1 }
        #expect(!rivalAds.isEmpty)
        for ad in rivalAds {
            let pool = setup.pools[ad]
            #expect(!pool.valid.isEmpty && pool.valid.allSatisfy { $0.refusal == nil })
            // Signed with the P-192 key: it verifies under that key, so no P-256 key made it.
            #expect(pool.valid.allSatisfy { entry in
                guard case .skadnetwork(let signed, _) = entry.token else { return false }
                return ImpressionVerifier(publicKey: p192Key).verify(signed) == .valid
            })
            for entry in pool.faulty {
                let expected: ImpressionPool.Refusal = ["id out of range", "view-through below 2.2"].contains(entry.fault) ? .badFields : .badSignature
                #expect(entry.refusal == expected, "\(entry.fault ?? "")")
            }
        }
    }

    @Test("a P-192 network wins installs in a simulated run")
    func p192NetworkWins() throws {
        let setup = try Self.setupWithP192Rival()
        let outcomes = Simulation(setup: setup, seed: 7, devices: 400).outcomes(ofChunk: 0)
        #expect(outcomes.contains { outcome in outcome.postbacks.contains { $0.network == 1 && $0.isWinning } })
    }

    @Test("a network whose public key is on another curve than its private key is refused")
    func mismatchedPair() throws {
        let error = #expect(throws: SimulatorError.self) {
            try Fixtures.setup("skan-3.0-game.json") { campaign in
                campaign.adNetworks[1].privateKey = Self.p192Private
            }
        }
        #expect(error?.reason == "$.ad-networks[1].public-key ../../Keys/test/rival-network-public-key.pem: the key is P-256 and the private key P-192; expected the two halves of one key pair")
    }
}
