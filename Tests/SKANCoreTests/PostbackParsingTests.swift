import Foundation
import SKANCore
import Testing

/// Each kind of malformed input gets its own reason, naming the field and what was sent.
@Suite("Postback parsing")
struct PostbackParsingTests {
    static let base = #"{"version":"3.0","ad-network-id":"example123.skadnetwork","campaign-id":42,"app-id":525463029,"transaction-id":"6aafb7a5-0170-41b5-bbe4-fe71dedf1e28","redownload":true,"source-app-id":1234567891,"fidelity-type":1,"did-win":true,"conversion-value":20,"attribution-signature":"MEYCIQD5eq3AUlamORiGovqFiHWI4RZT/PrM3VEiXUrsC+M51wIhAPMANZA9c07raZJ64gVaXhB9+9yZj/X6DcNxONdccQij"}"#

    /// The base postback with one member replaced (or removed when `value` is nil).
    static func with(_ key: String, _ value: String?) -> String {
        var members = try! JSONObjectReader.members(of: Array(base.utf8)).get()
        if let index = members.firstIndex(where: { $0.key == key }) {
            if let value { members[index] = JSONMember(key: key, value: .number(value)) } else { members.remove(at: index) }
        } else if let value {
            members.append(JSONMember(key: key, value: .number(value)))
        }
        var writer = JSONWriter()
        for member in members { writer.raw(member.key, member.value.jsonText) }
        return writer.json
    }

    @Test("the base case is Apple's valid 3.0 postback")
    func baseIsValid() {
        #expect(PostbackVerifier().verify(Array(Self.base.utf8)).isValid)
    }

    @Test("a fine and a coarse value together still verify: neither is signed, so it is counted, not refused")
    func fineAndCoarseTogether() throws {
        let verdict = PostbackVerifier().verify(Array(Self.with("coarse-conversion-value", #""low""#).utf8))
        guard case .valid(let verified) = verdict else {
            Issue.record("expected valid, got \(verdict.status): \(verdict.reason ?? "")")
            return
        }
        #expect(verified.postback.conversionValue == 20)
        #expect(verified.postback.coarseConversionValue == .low)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let body: String
        let field: String?
        let reason: String
        var testDescription: String { reason }
    }

    static let cases: [Case] = [
        Case(body: with("campaign-id", #""42""#), field: "campaign-id", reason: #"campaign-id must be an integer 1...100, got "42" (a string)"#),
        Case(body: with("campaign-id", "101"), field: "campaign-id", reason: "campaign-id must be an integer 1...100, got 101"),
        Case(body: with("app-id", "525463029.0"), field: "app-id", reason: "not an integer"),
        Case(body: with("app-id", "99999999999999999999999"), field: "app-id", reason: "beyond 64 bits"),
        Case(body: with("app-id", "-1"), field: "app-id", reason: "must be a non-negative integer, got -1"),
        Case(body: with("app-id", "1e3"), field: "app-id", reason: "1e3 (not an integer)"),
        Case(body: with("app-id", "99999999999999999999999.5"), field: "app-id", reason: "(not an integer)"),
        Case(body: with("app-id", "9223372036854775808"), field: "app-id", reason: "9223372036854775808 (beyond 64 bits)"),
        Case(body: with("app-id", "-9223372036854775808"), field: "app-id", reason: "must be a non-negative integer, got -9223372036854775808"),
        Case(body: with("app-id", "-9223372036854775809"), field: "app-id", reason: "(beyond 64 bits)"),
        Case(body: with("campaign-id", "-0"), field: "campaign-id", reason: "must be an integer 1...100, got -0"),
        Case(body: with("app-id", nil), field: "app-id", reason: "app-id is required in a 3.0 postback and is missing"),
        Case(body: with("did-win", nil), field: "did-win", reason: "did-win is required in a 3.0 postback"),
        Case(body: with("redownload", "1"), field: "redownload", reason: "redownload must be true or false, got 1 (a number)"),
        Case(body: with("conversion-value", "64"), field: "conversion-value", reason: "conversion-value must be an integer 0...63, got 64"),
        Case(body: with("coarse-conversion-value", #""huge""#), field: "coarse-conversion-value", reason: #"got "huge" (a string)"#),
        Case(body: with("fidelity-type", "2"), field: "fidelity-type", reason: "fidelity-type must be an integer 0...1, got 2"),
        Case(body: with("transaction-id", "\"a\\u2063b\""), field: "transaction-id", reason: "U+2063"),
        Case(body: with("ad-network-id", "\"\""), field: "ad-network-id", reason: "non-empty string"),
        Case(body: with("ad-network-id", "\"a\\u0000b\""), field: "ad-network-id", reason: "control character"),
        Case(body: with("version", "3.0"), field: "version", reason: "version must be a string"),
        Case(body: with("attribution-signature", nil), field: "attribution-signature", reason: "is missing"),
        Case(body: #"{"version":"4.0","source-identifier":"12345"}"#, field: "ad-network-id", reason: "ad-network-id is required"),
        Case(body: "", field: nil, reason: "the body is empty"),
        Case(body: "[1,2]", field: nil, reason: "expected a JSON object"),
        Case(body: String(base.dropLast(20)), field: nil, reason: "not closed"),
        Case(body: #"{"app-id":1,"app-id":2}"#, field: nil, reason: #"duplicate key "app-id""#),
        Case(body: #"{"x":"#+String(repeating: "[", count: 10_000), field: nil, reason: "nesting deeper than 32"),
        Case(body: "{\"x\":\"\u{0}\"}", field: nil, reason: "raw control character"),
        Case(body: #"{"a":1} {"b":2}"#, field: nil, reason: "after the JSON object"),
    ]

    @Test("malformed input names its field and reason", arguments: cases)
    func malformed(_ testCase: Case) {
        let verdict = PostbackVerifier().verify(Array(testCase.body.utf8))
        guard case .malformed(let malformed) = verdict else {
            Issue.record("expected malformed, got \(verdict.status): \(verdict.reason ?? "")")
            return
        }
        #expect(malformed.field == testCase.field)
        #expect(malformed.reason.contains(testCase.reason), "\(malformed.reason)")
    }

    @Test("invalid UTF-8 is malformed")
    func invalidUTF8() {
        var bytes = Array(#"{"ad-network-id":"ab"}"#.utf8)
        bytes[18] = 0xFF
        #expect(PostbackVerifier().verify(bytes).reason?.contains("invalid UTF-8") == true)
    }

    @Test("an unknown version is unsupported-version, never guessed", arguments: ["5.0", "2.3", "", "4"])
    func unknownVersion(version: String) {
        let verdict = PostbackVerifier().verify(Array(Self.with("version", "\"\(version)\"").utf8))
        #expect(verdict.status == .unsupportedVersion)
        #expect(verdict.version == version)
        #expect(verdict.transactionID == "6aafb7a5-0170-41b5-bbe4-fe71dedf1e28")
    }

    @Test("unknown keys are tolerated, kept in order, and do not touch the signature")
    func extrasKept() throws {
        let body = Self.with("adjust-tracker", #"{"nested":[1,2,{"k":null}]}"#)
        let verdict = PostbackVerifier().verify(Array(body.utf8))
        #expect(verdict.isValid)
        let extras = verdict.postback?.extras ?? []
        #expect(extras.map(\.key) == ["adjust-tracker"])
        #expect(extras.first?.value == .object(#"{"nested":[1,2,{"k":null}]}"#))
    }

    @Test("source-app-id 0 is present, not absent, and signed")
    func sourceAppIDZero() throws {
        let postback = try Postback.parse(Array(Self.with("source-app-id", "0").utf8)).get()
        #expect(postback.sourceAppID == 0)
        #expect(postback.signedFields(.v3_0).contains(.sourceAppID))
        #expect(postback.signedString(.v3_0).description.contains("␣true␣0␣1␣true"))
    }

    @Test("a missing optional field is left out of the signed string with its separator")
    func optionalFieldOmitted() throws {
        let postback = try Postback.parse(Array(Self.with("source-app-id", nil).utf8)).get()
        #expect(!postback.signedFields(.v3_0).contains(.sourceAppID))
        #expect(!postback.signedString(.v3_0).description.contains("␣␣"))
    }

    @Test("a 1.0 postback may omit the version key; with it, the version is 1.0")
    func version1() throws {
        let body = #"{"ad-network-id":"com.example","campaign-id":42,"app-id":1,"transaction-id":"t","attribution-signature":"AA=="}"#
        let postback = try Postback.parse(Array(body.utf8)).get()
        #expect(postback.version == .v1_0)
        #expect(!postback.hasVersionKey)
        #expect(postback.version.curve == .p192)
    }

    @Test("each field's ordinal is its position among all fields, so tables indexed by it line up")
    func ordinals() {
        #expect(PostbackField.allCases.map(\.ordinal) == Array(PostbackField.allCases.indices))
    }

    @Test("integers read as Swift's Int reads them, up to both ends of 64 bits")
    func integerEdges() throws {
        for (text, expected) in [("0", 0), ("7", 7), ("9223372036854775807", Int.max), ("-0", 0)] {
            let postback = try Postback.parse(Array(Self.with("source-app-id", text).utf8)).get()
            #expect(postback.sourceAppID == expected, "\(text)")
        }
    }
}
