import Foundation
import SKANCore
@testable import SKANSimulator
import Testing

/// `disagreeing-copy-rate`: a relay changes an unsigned value of some ad-network copies, so their developer copies
/// disagree, and every postback still verifies.
@Suite("Relay tampering")
struct RelayTamperingTests {
    /// Each ad-network record with a developer copy right after it, paired with that copy.
    static func pairs(_ records: [SimulatedRecord]) -> [(network: SimulatedRecord, developer: SimulatedRecord)] {
        zip(records, records.dropFirst()).filter { $0.0.recipient == .adNetwork && $0.1.recipient == .developer }
    }

    @Test("a share of ad-network copies differ from their developer copy in one unsigned value, and all verify")
    func disagreeingCopies() throws {
        let setup = try Fixtures.setup("skan-4.0-relayed-copies.json")
        let verifier = AttributionVerifier(keyRing: Fixtures.simulatedAppleRing(setup))
        var records: [SimulatedRecord] = []
        let summary = try Simulation(setup: setup, seed: 4, devices: 800).run { records.append($0) }
        let pairs = Self.pairs(records)
        let differing = pairs.filter { $0.network.postback != $0.developer.postback }
        #expect(differing.count == summary.disagreeingCopies)
        // 5 % of about 650 copies, less those without a value.
        #expect((10...60).contains(differing.count), "\(differing.count) of \(pairs.count)")
        for (network, developer) in differing {
            guard case .valid(let changed) = verifier.verify(record: network.postback),
                  case .valid(let original) = verifier.verify(record: developer.postback) else {
                Issue.record("a changed copy no longer verifies")
                continue
            }
            #expect(changed.fields.dedupID == original.fields.dedupID)
            let fine = changed.fields.conversionValue != original.fields.conversionValue
            let coarse = changed.fields.coarseValue != original.fields.coarseValue
            #expect(fine != coarse, "exactly one value changes")
        }
    }

    @Test("at the default rate of 0 every developer copy is its network postback's exact copy")
    func noTamperingByDefault() throws {
        let setup = try Fixtures.setup("skan-4.0-subscription.json")
        let pairs = Self.pairs(try Fixtures.records(setup, seed: 4, devices: 800))
        #expect(!pairs.isEmpty)
        #expect(pairs.allSatisfy { $0.network.postback == $0.developer.postback })
    }

    @Test("a value is moved within its range: 63 wraps to 0, high to low; a postback with none is left alone")
    func changes() throws {
        func changed(_ json: String) -> String? { RelayTampering.changed(Array(json.utf8)).map { String(decoding: $0, as: UTF8.self) } }
        #expect(changed(#"{"conversion-value":63,"a":1}"#) == #"{"conversion-value":0,"a":1}"#)
        #expect(changed(#"{"coarse-conversion-value":"high"}"#) == #"{"coarse-conversion-value":"low"}"#)
        #expect(changed(#"{"version":"4.0"}"#) == nil)
    }
}
