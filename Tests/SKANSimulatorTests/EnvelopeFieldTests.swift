import Foundation
import SKANCore
import Testing
@testable import SKANSimulator

/// The device's story in each output line: present, in time order, and in step with the postback it wraps.
@Suite("Envelope fields tell each postback's story")
struct EnvelopeFieldTests {
    struct Line {
        let send: Int64, installed: Int64, launched: Int64, prepared: Int64, lastUpdate: Int64?
        let device: Int, tier: Int
        let postback: [String: Any]
    }

    static func lines(_ name: String, seed: UInt64) throws -> [Line] {
        let setup = try Fixtures.setup(name)
        return try Fixtures.records(setup, seed: seed, devices: 500).map { record in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(record.envelopeLine)) as? [String: Any])
            func time(_ key: String) throws -> Int64 {
                let text = try #require(object[key] as? String, "\(key) missing")
                return try #require(SimulatedTime.parse(text), "\(key): \(text)")
            }
            let lastUpdate: Int64?
            if object["last-update-at"] is NSNull { lastUpdate = nil } else { lastUpdate = try time("last-update-at") }
            return Line(send: try time("send-at"), installed: try time("installed-at"), launched: try time("launched-at"),
                        prepared: try time("prepared-at"), lastUpdate: lastUpdate,
                        device: try #require(object["device"] as? Int), tier: try #require(object["tier"] as? Int),
                        postback: try #require(object["postback"] as? [String: Any]))
        }
    }

    @Test("installed-at ≤ launched-at ≤ prepared-at ≤ send-at; last-update-at between launch and preparation, null exactly when no value travels",
          arguments: Fixtures.sampleNames, [UInt64(1), 2, 3])
    func timesInOrder(name: String, seed: UInt64) throws {
        let lines = try Self.lines(name, seed: seed)
        #expect(lines.count > 50)
        for line in lines {
            #expect(line.installed <= line.launched && line.launched <= line.prepared && line.prepared <= line.send)
            let carriesValue = line.postback["conversion-value"] != nil || line.postback["coarse-conversion-value"] != nil
            #expect((line.lastUpdate != nil) == carriesValue)
            if let update = line.lastUpdate { #expect(line.launched <= update && update <= line.prepared) }
        }
        #expect(lines.contains { $0.lastUpdate != nil } && lines.contains { $0.lastUpdate == nil })
    }

    @Test("tier matches the fields the postback keeps (spec §3.3)", arguments: Fixtures.sampleNames)
    func tierMatchesFields(name: String) throws {
        var tiers = Set<Int>()
        for line in try Self.lines(name, seed: 4) {
            #expect((0...3).contains(line.tier))
            tiers.insert(line.tier)
            let postback = line.postback
            let won = postback["did-win"] as? Bool ?? true
            let hasSource = postback["source-app-id"] != nil || postback["source-domain"] != nil
            let fine = postback["conversion-value"] != nil, coarse = postback["coarse-conversion-value"] != nil
            guard won else { #expect(!hasSource && !fine && !coarse); continue }
            if let index = postback["postback-sequence-index"] as? Int {
                let digits = (postback["source-identifier"] as? String)?.count
                if index > 0 {
                    #expect(line.tier > 0 && !hasSource && !fine && digits == 2)
                } else {
                    #expect(hasSource == (line.tier == 3))
                    if line.tier <= 1 { #expect(!fine && digits == 2) }
                    if line.tier == 0 { #expect(!coarse) }
                    if line.tier >= 2 { #expect(!coarse) }
                }
            } else {
                #expect(hasSource == (line.tier >= 2))
                if line.tier < 2 { #expect(!fine) }
            }
        }
        #expect(tiers.count > 1)
    }

    @Test("one device, one story: every line of a device agrees on install, launch and tier", arguments: Fixtures.sampleNames)
    func devicesAreConsistent(name: String) throws {
        let lines = try Self.lines(name, seed: 5)
        let byDevice = Dictionary(grouping: lines, by: \.device)
        #expect(byDevice.count > 10)
        for (_, story) in byDevice {
            let first = story[0]
            #expect(story.allSatisfy { $0.installed == first.installed && $0.launched == first.launched && $0.tier == first.tier })
            #expect(first.device >= 0 && first.device < 500)
        }
    }

    @Test("a traced device tells the story its envelope lines tell")
    func traceMatchesOutput() throws {
        let setup = try Fixtures.setup("skan-3.0-game.json")
        let records = try Fixtures.records(setup, seed: 2, devices: 500)
        let record = try #require(records.first { $0.recipient == .adNetwork })
        let simulation = Simulation(setup: setup, seed: 2, devices: 500)
        let lines = TraceEvent.lines(try #require(simulation.trace(device: record.device)))
        #expect(lines.contains { $0.hasPrefix(SimulatedTime.iso8601(record.installedAt) + "  install") })
        #expect(lines.contains { $0.hasPrefix(SimulatedTime.iso8601(record.launchedAt) + "  first launch") })
        #expect(lines.contains { $0.hasPrefix(SimulatedTime.iso8601(record.sendAt)) && $0.contains("sent to") })
        #expect(lines.contains { $0.contains("impression") })
        #expect(simulation.trace(device: 500) == nil)
    }
}
