import Foundation
import SKANCore
import SKANSimulator

/// Postbacks shaped like an ad network's traffic, for every ingest, report and dashboard benchmark.
///
/// Why: a benchmark whose postbacks all share one source identifier and campaign touches the same few rollup and
/// index rows again and again, so per-row costs that grow with distinct keys stay hidden (issue 30: a trigger that
/// cost 4 µs a row on repeated keys cost 25–30 µs on new ones, and durable ingest lost 37 % unseen). The mix here:
///
/// - 8 ad networks; by default 80 % SKAdNetwork 4.0, 5 % SKAdNetwork 3.0 (campaign ids 1–100), 15 %
///   AdAttributionKit (``aakShare``);
/// - 9,000 four-digit source identifiers of skewed popularity (the square of a uniform draw favours the low
///   ones), cut to 2, 3 or 4 digits by the privacy tier (10 / 30 / 60 %);
/// - windows 0, 1, 2 at 60 / 28 / 12 %; a fine value 0–63 only in window 0 at four digits, else a coarse value
///   (low, medium, high) or none; 10 % non-winning (no value, no source app);
/// - 10 % redownloads, a quarter view-through, 5 % web ads (a source domain), the rest from a source app;
/// - arrival spread evenly over ``days`` days from ``start`` (an envelope's `send-at-ms`, which `skan ingest`
///   stores as the received time).
///
/// Every postback is signed with the simulated Apple keys (`Keys/test`), deterministically (RFC 6979-style
/// nonces), so the same seed gives byte-identical files and the same instruction counts under callgrind.
struct TrafficShape: Sendable {
    /// The share of AdAttributionKit postbacks, 0...1. Builds from before AdAttributionKit need 0.
    var aakShare = 0.15
    /// The share of SKAdNetwork 3.0 postbacks (campaign ids instead of source identifiers).
    var v3Share = 0.05
    /// How many days the arrivals spread over.
    var days = 30
    /// The first day, midnight UTC, in milliseconds since 1970 (2026-03-01).
    var start: Int64 = 1_772_323_200_000
    /// How many four-digit source identifiers campaigns use.
    var sourceIdentifiers = 9_000

    static let networks = 8
    static let appID = 525463029

    /// The signers for the simulated Apple keys, made once per file.
    struct Keys: Sendable {
        let p256: DeterministicSigner
        let aak: DeterministicSigner

        init() throws {
            p256 = try DeterministicSigner(key: try KeyFiles.privateKey(
                "Keys/test/simulated-apple-p256-private-key.pem", option: "bench key"))
            aak = try DeterministicSigner(key: try KeyFiles.privateKey(CoreBench.aakKeyPath("private"), option: "bench key"))
        }
    }

    /// The postback numbered `index` of `count` in the run seeded `seed`, as one JSON line: an envelope with its
    /// arrival time when `envelope`, else the bare postback as a device posts it. Arrivals follow the index, as
    /// real traffic arrives in time order: postback `index` lands `index / count` of the way through the days.
    func line(_ index: Int, of count: Int, seed: UInt64, keys: Keys, envelope: Bool) throws -> [UInt8] {
        var random = SeededRandom(seed: seed, stream: UInt64(index))
        let body = try postback(&random, keys: keys)
        guard envelope else { return Array(body.utf8) }
        let span = Int64(days) * 86_400_000
        let arrival = start + Int64(index) * span / Int64(max(count, 1))
        return Array(#"{"send-at-ms":\#(arrival),"postback":\#(body)}"#.utf8)
    }

    private func postback(_ random: inout SeededRandom, keys: Keys) throws -> String {
        let network = random.below(Self.networks)
        // Popular campaigns first: the square of a uniform draw puts a third of the traffic on a tenth of them.
        let campaign = Int(Double(sourceIdentifiers) * pow(random.unit(), 2))
        let fourDigits = 1000 + campaign % 9000
        let window = random.weighted([0.60, 0.88, 1.0])
        let tier = random.weighted([0.10, 0.40, 1.0])  // 2, 3 or 4 digits survive
        let didWin = !random.chance(0.10)
        let redownload = random.chance(0.10)
        let viewThrough = random.chance(0.25)
        let web = random.chance(0.05)
        let fine = didWin && window == 0 && tier == 2 ? random.below(64) : nil
        let coarse: CoarseValue? = !didWin || fine != nil ? nil : [nil, .low, .low, .medium, .high][random.below(5)]
        let transaction = random.uuid().uuidString.lowercased()
        let framework = random.unit()
        if framework < aakShare {
            return try aakPostback(network: network, sourceIdentifier: String(String(fourDigits).prefix(2 + tier)),
                                   window: window, didWin: didWin, redownload: redownload, reengagement: random.chance(0.05),
                                   viewThrough: viewThrough, fine: fine, coarse: coarse, id: transaction, keys: keys)
        }
        let v3 = framework < aakShare + v3Share
        var postback = Postback(
            version: v3 ? .v3_0 : .v4_0, adNetworkID: "net\(network).skadnetwork",
            campaignID: v3 ? 1 + campaign % 100 : nil,
            sourceIdentifier: v3 ? nil : String(String(fourDigits).prefix(2 + tier)),
            appID: Self.appID, transactionID: transaction, redownload: redownload,
            sourceAppID: didWin && !web ? 1_000_000_000 + random.below(5000) : nil,
            sourceDomain: !v3 && didWin && web ? "site\(random.below(50)).example" : nil,
            fidelityType: viewThrough ? 0 : 1, didWin: didWin, postbackSequenceIndex: v3 ? nil : window,
            conversionValue: v3 ? (didWin ? random.below(64) : nil) : fine,
            coarseConversionValue: v3 ? nil : coarse)
        let signature = try keys.p256.signature(for: postback.signedString(postback.version.layout).bytes)
        postback.attributionSignature = Data(signature).base64EncodedString()
        return postback.json
    }

    private func aakPostback(network: Int, sourceIdentifier: String, window: Int, didWin: Bool, redownload: Bool,
                             reengagement: Bool, viewThrough: Bool, fine: Int?, coarse: CoarseValue?, id: String,
                             keys: Keys) throws -> String {
        var payload = JSONWriter()
        payload.integer("advertised-item-identifier", Self.appID)
        payload.string("conversion-type", reengagement ? "re-engagement" : redownload ? "redownload" : "download")
        payload.string("marketplace-identifier", "com.apple.AppStore")
        payload.string("ad-network-identifier", "net\(network).adattributionkit")
        payload.string("impression-type", viewThrough ? "view-through" : "app-impression")
        payload.integer("postback-sequence-index", window)
        payload.string("source-identifier", sourceIdentifier)
        payload.bool("did-win", didWin)
        payload.string("postback-identifier", id)
        if didWin { payload.integer("publisher-item-identifier", 1_234_567_891) }
        var input = CompactJWS.es256HeaderSegment(kid: CoreBench.aakKid)
        input.append(UInt8(ascii: "."))
        Base64URL.append(payload.json.utf8, to: &input)
        let jws = String(decoding: input, as: UTF8.self) + "." + Base64URL.encode(try keys.aak.rawSignature(for: input))
        var body = JSONWriter()
        body.string("jws-string", jws)
        if let fine { body.integer("conversion-value", fine) }
        if let coarse { body.string("coarse-conversion-value", coarse.rawValue) }
        body.string("ad-interaction-type", viewThrough ? "view" : "click")
        return body.json
    }
}
