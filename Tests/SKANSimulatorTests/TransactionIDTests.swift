import Foundation
import SKANCore
import Testing
@testable import SKANSimulator

/// Transaction ids are what collectors dedupe on (spec §10.3): no two postbacks of different runs may share one,
/// whatever the campaigns and seeds, while a campaign and seed still give the same ids every time.
@Suite("Transaction ids are unique across runs")
struct TransactionIDTests {
    /// Whole chunks of devices (unsigned, so cheap): the ids a collector would see from the start of each run.
    static func ids(_ setup: CampaignSetup, seed: UInt64, chunks: Int = 1) -> [String] {
        let simulation = Simulation(setup: setup, seed: seed, devices: chunks * Simulation.chunkSize)
        return (0..<chunks).flatMap { chunk in
            simulation.outcomes(ofChunk: chunk).flatMap { $0.postbacks.map(\.fields.dedupID) }
        }
    }

    @Test("the three samples run with one seed share no transaction id, and none repeats within a run")
    func acrossSamples() throws {
        var seen: [String: String] = [:]
        var shared = 0
        for name in Fixtures.sampleNames {
            let ids = Self.ids(try Fixtures.setup(name), seed: 1, chunks: 4)
            #expect(ids.count > 2000, "\(name): too few postbacks to mean anything")
            #expect(Set(ids).count == ids.count, "\(name): an id repeats within the run")
            for id in Set(ids) {
                if let other = seen[id] { shared += 1; if shared <= 3 { Issue.record("\(id) in \(other) and \(name)") } }
                seen[id] = name
            }
        }
        #expect(shared == 0)
    }

    @Test("one campaign run with many seeds never repeats an id", arguments: Fixtures.sampleNames)
    func acrossSeeds(name: String) throws {
        let setup = try Fixtures.setup(name)
        var all = Set<String>()
        var total = 0
        for seed in UInt64(1)...8 {
            let ids = Self.ids(setup, seed: seed)
            total += ids.count
            all.formUnion(ids)
        }
        #expect(total > 4000)
        #expect(all.count == total)
    }
}
