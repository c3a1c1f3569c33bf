import Foundation
import SKANCore

/// A campaign ready to run: keys loaded, each placement's impressions signed by its network and checked once
/// by the device rules, postbacks' destinations resolved.
public struct CampaignSetup: Sendable {
    /// The campaign as written.
    public let campaign: Campaign
    /// Signs postbacks 2.1 and later.
    let appleP256: DeterministicSigner
    /// Signs postbacks 1.0 and 2.0.
    let appleP192: DeterministicSigner
    /// Signs AdAttributionKit postbacks (ES256), when the campaign names the key.
    let appleAAK: DeterministicSigner?
    /// The JWS header segment every AdAttributionKit postback of the run starts with (one kid).
    let aakHeaderSegment: [UInt8]
    /// The public halves, for callers that build a key ring trusting the simulated Apple.
    public let applePublicKeys: [ECPublicKey]
    /// The simulated Apple keys as a key ring holds them: P-256 and P-192 by curve, the AdAttributionKit key by
    /// its kid. Add them to `KeyRing.apple` to verify what the run sends.
    public let trustedKeys: [TrustedKey]
    /// The device rules the campaign's ads call for, chosen once.
    let rules: DeviceRules
    /// Per placement: the impressions devices are shown.
    let pools: [ImpressionPool]
    /// Cumulative placement weights, for drawing which ad a device sees.
    let cumulativeWeights: [Double]
    /// Index of each placement's network in `campaign.adNetworks`.
    let networkOfAd: [Int]
    /// Every destination, by index: the networks' postback URLs, then the developer copy URLs if any
    /// (SKAdNetwork's, then AdAttributionKit's well-known path).
    public let destinations: [String]
    /// The index in ``destinations`` of each framework's developer copy URL.
    private let copyDestinations: [Framework: Int]

    /// Loads keys through `readFile` (a path as the campaign writes it → PEM text) and prepares the pools.
    public init(campaign: Campaign, readFile: (String) throws(SimulatorError) -> String) throws(SimulatorError) {
        self.campaign = campaign
        /// `curve` nil takes either curve, as a device does for an ad network's key.
        func privateKey(_ path: String, _ role: String, curve: ECCurve?) throws(SimulatorError) -> ECPrivateKey {
            let pem = try readFile(path)
            let key: ECPrivateKey
            do throws(SKANError) { key = try ECPrivateKey(pem: pem, source: path) } catch {
                throw SimulatorError(.invalidKey, "\(role): \(error.reason)")
            }
            if let curve, key.curve != curve {
                throw SimulatorError(.invalidKey, "\(role) \(path): the key is \(key.curve), expected \(curve)")
            }
            return key
        }
        let p256 = try privateKey(campaign.appleKeys.p256, "$.apple-keys.p256", curve: .p256)
        let p192 = try privateKey(campaign.appleKeys.p192, "$.apple-keys.p192", curve: .p192)
        do throws(SKANError) {
            appleP256 = try DeterministicSigner(key: p256)
            appleP192 = try DeterministicSigner(key: p192)
        } catch {
            throw SimulatorError(.invalidKey, error.reason)
        }
        applePublicKeys = [p256.publicKey, p192.publicKey]
        var trusted = [TrustedKey(name: "simulated-apple-\(p256.curve)", key: p256.publicKey),
                       TrustedKey(name: "simulated-apple-\(p192.curve)", key: p192.publicKey)]
        if let path = campaign.appleKeys.aak {
            let aak = try privateKey(path, "$.apple-keys.aak", curve: .p256)
            do throws(SKANError) { appleAAK = try DeterministicSigner(key: aak) } catch {
                throw SimulatorError(.invalidKey, error.reason)
            }
            trusted.append(TrustedKey(name: "simulated-apple-aak", key: aak.publicKey, kid: campaign.appleKeys.aakKid))
        } else {
            appleAAK = nil
        }
        trustedKeys = trusted
        aakHeaderSegment = CompactJWS.es256HeaderSegment(kid: campaign.appleKeys.aakKid)
        rules = DeviceRules(campaign: campaign)
        var signers: [ECPrivateKey] = []
        var publicKeys: [ECPublicKey] = []
        for (index, network) in campaign.adNetworks.enumerated() {
            // P-256 or P-192: networks that registered in mid-2020 still sign with prime192v1 keys (spec §1).
            let key = try privateKey(network.privateKey, "$.ad-networks[\(index)].private-key", curve: nil)
            let publicText = try readFile(network.publicKey)
            let publicKey: ECPublicKey
            do throws(SKANError) { publicKey = try ECPublicKey(text: publicText, source: network.publicKey) } catch {
                throw SimulatorError(.invalidKey, "$.ad-networks[\(index)].public-key: \(error.reason)")
            }
            // Named here, since the pool's check would only say that the keys disagree.
            guard publicKey.curve == key.curve else {
                throw SimulatorError(.invalidKey, "$.ad-networks[\(index)].public-key \(network.publicKey): the key is \(publicKey.curve) and the private key \(key.curve); expected the two halves of one key pair")
            }
            signers.append(key)
            publicKeys.append(publicKey)
        }
        let networkIndex = Dictionary(uniqueKeysWithValues: campaign.adNetworks.enumerated().map { ($1.id, $0) })
        networkOfAd = campaign.ads.map { networkIndex[$0.network]! }
        // The pools come from their own stream of the seed-independent generator: they are part of the campaign,
        // and impression signatures never reach the output.
        var random = SeededRandom(seed: 0x1A9_5EED)
        var pools: [ImpressionPool] = []
        for (index, ad) in campaign.ads.enumerated() {
            let network = networkOfAd[index]
            switch ad.framework {
            case .skadnetwork:
                pools.append(try ImpressionPool(
                    ad: ad, adIndex: index, campaign: campaign, networkID: campaign.adNetworks[network].id,
                    key: signers[network], publicKey: publicKeys[network], random: &random))
            case .adAttributionKit:
                pools.append(try ImpressionPool(
                    adAttributionKitAd: ad, adIndex: index, campaign: campaign, networkID: campaign.adNetworks[network].id,
                    key: signers[network], publicKey: publicKeys[network], random: &random))
            }
        }
        self.pools = pools
        var total = 0.0
        cumulativeWeights = campaign.ads.map { total += $0.weight; return total }
        if total <= 0 { throw SimulatorError(.invalidCampaign, "$.ads: expected at least one ad with a weight above 0") }
        var destinations = campaign.adNetworks.map(\.postbackURL)
        var copies: [Framework: Int] = [:]
        if let endpoint = campaign.advertisedApp.reportEndpoint {
            // AdAttributionKit's copy only when an ad can make one, so SKAdNetwork campaigns list what they did.
            let frameworks = Framework.allCases.filter { framework in campaign.ads.contains { $0.framework == framework } || framework == .skadnetwork }
            for framework in frameworks {
                if let url = DeveloperCopy.url(forEndpoint: endpoint, framework: framework) {
                    copies[framework] = destinations.count
                    destinations.append(url)
                }
            }
        }
        copyDestinations = copies
        if destinations.count > 250 {
            throw SimulatorError(.invalidCampaign, "$.ad-networks: expected at most 248 ad networks, got \(campaign.adNetworks.count)")
        }
        self.destinations = destinations
    }

    /// Where a developer copy of a postback in `framework`'s format goes, if the app asked for copies.
    func developerCopyDestination(for framework: Framework) -> Int? {
        copyDestinations[framework]
    }


    /// The simulated Apple signer for a postback version: P-192 for 1.0 and 2.0, P-256 from 2.1.
    func appleSigner(for version: PostbackVersion) -> DeterministicSigner {
        version.curve == .p192 ? appleP192 : appleP256
    }
}
