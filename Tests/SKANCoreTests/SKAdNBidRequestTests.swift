import SKANCore
import Testing

/// The OpenRTB `skadn` version negotiation (spec §7.1): the highest version offered that the bid can be signed for.
@Suite("OpenRTB skadn negotiation")
struct SKAdNBidRequestTests {
    @Test("picks the highest offered version the bid's identifiers allow", arguments: [
        (["2.0", "2.2", "3.0", "4.0"], true, false, "4.0"),
        (["2.0", "2.2", "3.0", "4.0"], false, true, "3.0"),
        (["2.0", "2.2", "3.0", "4.0"], true, true, "4.0"),
        (["2.0", "2.1"], true, true, "2.1"),
        (["4.0"], false, true, nil),
        (["3.0"], true, false, nil),
        (["1.0", "9.9", "banana"], true, true, nil),
        ([String](), true, true, nil),
    ] as [([String], Bool, Bool, String?)])
    func table(versions: [String], source: Bool, campaign: Bool, expected: String?) {
        let request = SKAdNBidRequest(versions: versions, sourceApp: "880047117", networkIDs: [])
        #expect(request.version(hasSourceIdentifier: source, hasCampaign: campaign)?.rawValue == expected)
    }

    @Test("reads imp.ext.skadn: versions or the deprecated version, lowercased network ids, a named error")
    func parsing() throws {
        let request = try SKAdNBidRequest(json: Array(#"{"versions":["2.0","4.0"],"sourceapp":"880047117","skadnetids":["CDKKSQ4T37.skadnetwork","example.skadnetwork"],"skoverlay":1}"#.utf8))
        #expect(request.versions == ["2.0", "4.0"] && request.sourceApp == "880047117")
        #expect(request.network(among: ["example.skadnetwork", "cdkksq4t37.skadnetwork"]) == "cdkksq4t37.skadnetwork")
        #expect(request.network(among: ["other.skadnetwork"]) == nil)
        let old = try SKAdNBidRequest(json: Array(#"{"version":"2.0","skadnetids":[]}"#.utf8))
        #expect(old.versions == ["2.0"])
        do {
            _ = try SKAdNBidRequest(json: Array(#"{"versions":[2.0]}"#.utf8), origin: "imp-ext-skadn.")
            Issue.record("numbers taken as versions")
        } catch {
            #expect(error.reason.hasPrefix("imp-ext-skadn.versions must hold strings"))
        }
    }
}
