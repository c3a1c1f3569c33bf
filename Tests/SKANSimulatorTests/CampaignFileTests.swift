import Foundation
import Testing
@testable import SKANSimulator

/// A bad campaign file gets an error naming the JSON path of the bad field and what was expected.
@Suite("Campaign files")
struct CampaignFileTests {
    /// A change to the 4.0 sample: the path to set, the value, and what the error must say.
    struct BadField: Sendable, CustomStringConvertible {
        let path: [String]
        let value: any Sendable
        let expected: String
        var description: String { path.joined(separator: ".") }
    }

    static let badFields: [BadField] = [
        BadField(path: ["version"], value: "5.0", expected: "$.version: expected one of \"1.0\""),
        BadField(path: ["ads", "2", "kind"], value: "banner", expected: "$.ads[2].kind: expected one of \"storekit-rendered\", \"view-through\", \"web\", got \"banner\""),
        BadField(path: ["ads", "1", "install-rate"], value: 1.5, expected: "$.ads[1].install-rate: expected a number 0.0...1.0, got 1.5"),
        BadField(path: ["ads", "0", "source-identifier"], value: 12345, expected: "$.ads[0].source-identifier: expected an integer 10...9999, got 12345"),
        BadField(path: ["ads", "3", "network"], value: "nobody.skadnetwork", expected: "$.ads[3].network: expected one of the ad-networks ids"),
        BadField(path: ["ad-networks", "1", "id"], value: "Rival22.SKAdNetwork", expected: "$.ad-networks[1].id: expected a lowercase ad network id"),
        BadField(path: ["start"], value: "March 2nd", expected: "$.start: expected a UTC date"),
        BadField(path: ["privacy-tiers"], value: ["5": 1.0], expected: "$.privacy-tiers: expected keys \"0\" to \"3\""),
        BadField(path: ["events", "2", "delay-hours"], value: [40, 1], expected: "$.events[2].delay-hours: expected [low, high] with low ≤ high"),
        BadField(path: ["conversion-schema", "1", "coarse"], value: "huge", expected: "$.conversion-schema[1].coarse: expected one of low, medium, high, got \"huge\""),
        BadField(path: ["advertised-app", "app-id"], value: "525463029", expected: "$.advertised-app.app-id: expected an integer, got a string"),
        BadField(path: ["settings", "source-identifier-digits"], value: "middle", expected: "$.settings.source-identifier-digits: expected one of \"trailing\", \"leading\""),
    ]

    static func sample() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.campaign("skan-4.0-subscription.json")))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    static func setting(_ value: Any, at path: ArraySlice<String>, in node: Any) -> Any {
        guard let key = path.first else { return value }
        if var array = node as? [Any], let index = Int(key) {
            array[index] = setting(value, at: path.dropFirst(), in: array[index])
            return array
        }
        var object = node as? [String: Any] ?? [:]
        object[key] = setting(value, at: path.dropFirst(), in: object[key] as Any)
        return object
    }

    @Test("each bad field is named with its path and what was expected", arguments: badFields)
    func badFieldNamesPath(_ bad: BadField) throws {
        let changed = Self.setting(bad.value, at: bad.path[...], in: try Self.sample())
        let data = try JSONSerialization.data(withJSONObject: changed)
        let error = #expect(throws: SimulatorError.self) { try CampaignFile.decode(data, source: "campaign.json") }
        #expect(error?.reason.hasPrefix("campaign.json: \(bad.expected)") == true, "\(error?.reason ?? "")")
    }

    @Test("a missing required field is named")
    func missingField() throws {
        var sample = try Self.sample()
        sample["ad-networks"] = [["id": "a.skadnetwork", "private-key": "k", "public-key": "k"]]
        let data = try JSONSerialization.data(withJSONObject: sample)
        let error = #expect(throws: SimulatorError.self) { try CampaignFile.decode(data, source: "c.json") }
        #expect(error?.reason == "c.json: $.ad-networks[0].postback-url: missing; this field is required")
    }

    @Test("a file that is not JSON says so")
    func notJSON() {
        let error = #expect(throws: SimulatorError.self) { try CampaignFile.decode(Data("{\"name\": ".utf8), source: "c.json") }
        #expect(error?.reason.hasPrefix("c.json: not valid JSON") == true)
    }

    @Test("every sample campaign loads", arguments: Fixtures.sampleNames)
    func samplesLoad(name: String) throws {
        let setup = try CampaignFile.load(path: Fixtures.campaign(name))
        #expect(setup.pools.count == setup.campaign.ads.count)
    }
}
