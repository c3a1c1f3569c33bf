import Foundation
import SKANCore
import Testing
@testable import SKANSimulator

/// What leaves the simulator: signed postbacks the core verifier judges, in order, reproducible.
@Suite("Simulated postbacks")
struct SimulationOutputTests {
    static let versions: [ImpressionVersion] = [.v1_0, .v2_0, .v2_1, .v2_2]

    @Test("every simulated postback verifies when the simulated Apple keys are trusted, and fails under Apple's", arguments: Fixtures.sampleNames)
    func verifierAcceptsSimulatedKeysOnly(name: String) throws {
        let setup = try Fixtures.setup(name)
        try checkVerification(setup, seeds: [1, 2, 3])
    }

    @Test("P-192 and older layouts verify too", arguments: versions)
    func olderVersionsVerify(version: ImpressionVersion) throws {
        let setup = try Fixtures.olderSetup(version)
        try checkVerification(setup, seeds: [4])
    }

    private func checkVerification(_ setup: CampaignSetup, seeds: [UInt64]) throws {
        let trusting = PostbackVerifier(keyRing: Fixtures.simulatedAppleRing(setup))
        let apple = PostbackVerifier(keyRing: .apple)
        var checked = 0
        for seed in seeds {
            for record in try Fixtures.records(setup, seed: seed, devices: 150) {
                let line = record.envelopeLine
                let verdict = trusting.verify(record: line.dropLast())
                #expect(verdict.isValid, "\(verdict)")
                #expect(!apple.verify(record: line.dropLast()).isValid)
                checked += 1
            }
        }
        #expect(checked > 0)
    }

    @Test("the same seed gives byte-identical output; another seed does not", arguments: Fixtures.sampleNames)
    func sameSeedSameBytes(name: String) throws {
        let setup = try Fixtures.setup(name)
        func bytes(_ seed: UInt64) throws -> [UInt8] {
            try Fixtures.records(setup, seed: seed, devices: 300).flatMap(\.envelopeLine)
        }
        let first = try bytes(11)
        #expect(!first.isEmpty)
        #expect(first == (try bytes(11)))
        #expect(first != (try bytes(12)))
    }

    @Test("output is in send-time order, each developer copy right after its winning postback")
    func sendTimeOrder() throws {
        let setup = try Fixtures.setup("skan-4.0-subscription.json")
        // More than one chunk, so the merge of runs is exercised.
        let records = try Fixtures.records(setup, seed: 5, devices: Simulation.chunkSize + 500)
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.sendAt <= $1.sendAt })
        for (index, record) in records.enumerated() where record.recipient == .developer {
            #expect(index > 0 && records[index - 1].postback == record.postback && records[index - 1].recipient == .adNetwork)
            #expect(record.destination == "https://fitness-app.example/.well-known/skadnetwork/report-attribution/")
        }
        #expect(records.contains { $0.recipient == .developer })
    }

    @Test("the summary counts what the output holds")
    func summaryMatchesOutput() throws {
        let setup = try Fixtures.setup("skan-4.0-subscription.json")
        var records: [SimulatedRecord] = []
        let summary = try Simulation(setup: setup, seed: 3, devices: 600).run { records.append($0) }
        #expect(summary.devices == 600)
        #expect(records.filter { $0.recipient == .adNetwork }.count == summary.postbacks)
        #expect(records.filter { $0.recipient == .developer }.count == summary.developerCopies)
        #expect(summary.postbacksByWindow.reduce(0, +) == summary.winning)
    }

    @Test("the envelope carries send time, destination and the device's story beside the wire postback")
    func envelopeShape() throws {
        var record = SimulatedRecord(sendAt: 1_772_577_392_274, destination: "https://a.example/p", recipient: .adNetwork,
                                     postback: Array("{\"x\":1}".utf8), device: 7, installedAt: 1_772_400_000_000,
                                     launchedAt: 1_772_400_060_000, preparedAt: 1_772_490_000_000, lastUpdateAt: nil, tier: 2)
        #expect(String(decoding: record.envelopeLine, as: UTF8.self) ==
            "{\"send-at\":\"2026-03-03T22:36:32.274Z\",\"send-at-ms\":1772577392274,\"destination\":\"https://a.example/p\",\"recipient\":\"ad-network\",\"device\":7,\"installed-at\":\"2026-03-01T21:20:00.000Z\",\"launched-at\":\"2026-03-01T21:21:00.000Z\",\"prepared-at\":\"2026-03-02T22:20:00.000Z\",\"last-update-at\":null,\"tier\":2,\"postback\":{\"x\":1}}\n")
        record.lastUpdateAt = 1_772_400_060_000
        #expect(String(decoding: record.envelopeLine, as: UTF8.self).contains("\"last-update-at\":\"2026-03-01T21:21:00.000Z\",\"tier\":2,"))
        #expect(SimulatedTime.parse("2026-03-03T22:36:32.274Z") == 1_772_577_392_274)
        #expect(SimulatedTime.iso8601(0) == "1970-01-01T00:00:00.000Z")
    }
}

@Suite("Byte writers")
struct ByteWriterTests {
    @Test("postback bytes are exactly the core's wire JSON", arguments: Fixtures.sampleNames)
    func postbackBytesMatchCore(name: String) throws {
        let setup = try Fixtures.setup(name)
        var compared = 0
        for outcome in Simulation(setup: setup, seed: 9, devices: 300).outcomes(ofChunk: 0) {
            for planned in outcome.postbacks {
                var postback = planned.skadnetwork!
                postback.attributionSignature = "MEUCIQ+/="
                var bytes: [UInt8] = []
                PostbackBytes.append(postback, to: &bytes)
                #expect(bytes == Array(postback.json.utf8))
                compared += 1
            }
        }
        #expect(compared > 0)
    }

    @Test("send times print as ISO 8601 with milliseconds", arguments: [Int64(0), 1_772_577_392_274, 951_782_400_999, -1])
    func iso8601(time: Int64) {
        var bytes: [UInt8] = []
        SimulatedTime.appendISO8601(time, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == SimulatedTime.iso8601(time))
        if time >= 0 { #expect(SimulatedTime.parse(SimulatedTime.iso8601(time)) == time) }
    }
}
