import Foundation
import SKANCore
import Testing

/// A key table only makes the reader faster: every body reads the same with it as without it.
@Suite("JSON key table")
struct JSONKeyTableTests {
    static let manyKeys = "{" + (0..<40).map { #""extra-\#($0)":\#($0)"# }.joined(separator: ",")

    static let bodies: [String] = [
        PostbackParsingTests.base,
        #"{"version":"4.0","relay-note":"x","ad-network-id":"a","postback":{"k":[1,2]}}"#,
        #"{"vers\u0069on":"3.0","app-id":1}"#,                  // a known key spelled with an escape
        #"{"version":"3.0","vers\u0069on":"3.0"}"#,             // ... and the same key plainly: a duplicate
        #"{"app-id":1,"app-id":2}"#,
        #"{"x":1,"y":2,"x":3}"#,
        #"{"clé":1,"clé":2}"#,
        #"{"ad-network-iD":1,"ad-network-id":2}"#,              // same length as a known key, one letter off
        manyKeys + "}",
        manyKeys + #","extra-7":0}"#,                         // a duplicate past the linear-scan limit
        manyKeys + #","version":"1","app-id":2,"version":"2"}"#,
        #"{"version"}"#,
        #"{"ver"#,
        "{}",
    ]

    @Test("members and errors are the same with the postback key table as without it", arguments: bodies)
    func sameResult(body: String) {
        let plain = JSONObjectReader.members(of: Array(body.utf8))
        let tabled = JSONObjectReader.members(of: Array(body.utf8), knownKeys: PostbackField.keyTable)
        #expect(plain == tabled)
    }

    @Test("duplicates are found whether keys are known, unknown, escaped or past the linear-scan limit")
    func duplicates() {
        for body in [Self.bodies[3], Self.bodies[4], Self.bodies[5], Self.bodies[6], Self.bodies[9], Self.bodies[10]] {
            guard case .failure(let error) = JSONObjectReader.members(of: Array(body.utf8), knownKeys: PostbackField.keyTable) else {
                Issue.record("no duplicate found in \(body)")
                continue
            }
            #expect(error.reason.hasPrefix("duplicate key"), "\(error)")
        }
    }

    @Test("a table may hold the empty key, and finds it and its duplicate")
    func emptyKey() {
        let table = JSONKeyTable(["", "a"])
        #expect(JSONObjectReader.members(of: Array(#"{"":1,"a":2}"#.utf8), knownKeys: table)
                == .success([JSONMember(key: "", value: .number("1")), JSONMember(key: "a", value: .number("2"))]))
        guard case .failure(let error) = JSONObjectReader.members(of: Array(#"{"":1,"":2}"#.utf8), knownKeys: table) else {
            Issue.record("the repeated empty key was not found")
            return
        }
        #expect(error.reason == #"duplicate key """#)
    }

    @Test("a known key spelled with an escape is that field")
    func escapedKnownKey() throws {
        let body = PostbackParsingTests.base.replacingOccurrences(of: #""app-id""#, with: #""app\u002did""#)
        let postback = try Postback.parse(Array(body.utf8)).get()
        #expect(postback.appID == 525463029)
        #expect(postback.extras.isEmpty)
    }
}
