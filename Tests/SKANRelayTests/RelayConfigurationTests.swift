import Foundation
import SKANCore
import SKANRelay
import SKANTestSupport
import Testing

/// The relay file: what it reads, and how it refuses what cannot work, naming the destination and the field.
@Suite("Relay configuration", .temporaryFolder)
struct RelayConfigurationTests {
    static func folder() throws -> URL {
        try TemporaryFolder.current.url
    }

    static func decode(_ json: String, folder: URL? = nil) throws(RelayError) -> RelayConfiguration {
        try RelayConfiguration.decode(Data(json.utf8), folder: folder ?? FileManager.default.temporaryDirectory)
    }

    @Test("reads destinations, filters, body, secrets from files and limits")
    func reads() throws {
        let folder = try Self.folder()
        try "tok3n\n".write(to: folder.appendingPathComponent("token"), atomically: true, encoding: .utf8)
        try "k3y".write(to: folder.appendingPathComponent("key"), atomically: true, encoding: .utf8)
        let configuration = try Self.decode("""
            {"destinations": [{"name": "mmp", "url": "https://mmp.example/in",
              "frameworks": ["adattributionkit"], "ad-network-ids": ["n.skadnetwork"], "app-ids": [1], "copies": ["developer"],
              "paths": ["/postbacks"], "body": "json", "add": ["user-agent", "received-at"],
              "headers": {"Authorization": {"file": "token"}, "X-Source": "skan"},
              "signature": {"header": "X-Signature", "secret-file": "key"},
              "in-flight": 2, "timeout-seconds": 1.5, "max-age-hours": 24, "dead-after": 5,
              "lease-seconds": 4}]}
            """, folder: folder)
        let destination = try #require(configuration.destinations.first)
        #expect(destination.filter == RelayFilter(frameworks: [.adAttributionKit], adNetworkIDs: ["n.skadnetwork"], appIDs: [1],
                                                  copies: [.developer], paths: ["/postbacks"]))
        #expect(destination.body == .json(adding: [.receivedAt, .userAgent]))
        #expect(destination.headers == [RelayHeader(name: "Authorization", value: "tok3n"), RelayHeader(name: "X-Source", value: "skan")])
        #expect(destination.signature == RelaySignature(header: "X-Signature", secret: Array("k3y".utf8)))
        #expect(destination.inFlight == 2)
        #expect(destination.timeout == .milliseconds(1500))
        #expect(destination.maximumAge == .seconds(86_400))
        #expect(destination.deadAfter == 5)
        #expect(destination.lease == .seconds(4))
    }

    @Test("defaults: every postback as received, 7 days, 8 in flight")
    func defaults() throws {
        let destination = try #require(try Self.decode(#"{"destinations": [{"name": "a", "url": "http://127.0.0.1:1/x"}]}"#).destinations.first)
        #expect(destination.filter == RelayFilter())
        #expect(destination.body == .received)
        #expect(destination.maximumAge == .seconds(7 * 86_400))
        #expect(destination.inFlight == 8)
        // Two timeouts of 10 s plus 15 s.
        #expect(destination.lease == .seconds(35))
    }

    @Test("refuses bad configuration, naming the destination and the field", arguments: [
        (#"{"destinations": [{"name": "a", "url": "ftp://x/y"}]}"#, "destination 'a': url: expected an http:// or https:// URL"),
        (#"{"destinations": [{"name": "a", "url": "http://x/"}, {"name": "a", "url": "http://y/"}]}"#, "destination 'a': name: used by another"),
        (#"{"destinations": [{"name": "a", "url": "http://x/", "copies": ["loser"]}]}"#, "destination 'a': copies: expected one of \"winning\""),
        (#"{"destinations": [{"name": "a", "url": "http://x/", "add": ["received-at"]}]}"#, "destination 'a': add: members can only be added"),
        (#"{"destinations": [{"name": "a", "url": "http://x/", "body": "xml"}]}"#, "destination 'a': body: expected"),
        (#"{"destinations": [{"name": "a", "url": "http://x/", "in-flight": 0}]}"#, "destination 'a': in-flight: expected 1 to 256, got 0"),
        (#"{"destinations": [{"name": "a", "url": "http://x/", "headers": {"X": {"file": "/nonexistent/secret"}}}]}"#, "destination 'a': headers.X.file: cannot read /nonexistent/secret"),
        (#"{"destinations": [{"name": "a", "url": "http://x/", "frameworks": ["skan"]}]}"#, "destination 'a': frameworks: expected one of"),
        (#"{"destinations": [{"name": "a b", "url": "http://x/"}]}"#, "destination 'a b': name: expected letters"),
        (#"{"destinations": [{"url": "http://x/"}]}"#, "$.destinations[0].name: missing"),
        (#"{"trusted-proxies": ["10.0.0.1"], "destinations": []}"#, "trusted-proxies: not read from the relay file"),
        // Requests are written without a check of their own: header syntax is checked here, once.
        (#"{"destinations": [{"name": "a", "url": "http://x/", "headers": {"X Bad:": "1"}}]}"#, "destination 'a': headers: expected a header name of letters"),
        (#"{"destinations": [{"name": "a", "url": "http://x/", "headers": {"X-A": "1\r\nX-Injected: 2"}}]}"#,
         "destination 'a': headers.X-A: the value holds a control character (0xD), expected none"),
        (#"{"destinations": [{"name": "a", "url": "http://x/", "headers": {"content-length": "1"}}]}"#,
         "destination 'a': headers: \"content-length\" is set by the relay on every request"),
        (#"{"destinations": [{"name": "a", "url": "http://x/", "headers": {"Idempotency-Key": "1"}}]}"#, "is set by the relay"),
        (#"{"destinations": [{"name": "a", "url": "http://x/", "headers": {"X-Sig": "1"}, "signature": {"header": "x-sig", "secret-file": "/nonexistent"}}]}"#,
         "destination 'a': signature.header: \"x-sig\" is also in headers"),
        (#"{"destinations": [{"name": "a", "url": "http://x/", "signature": {"header": "Host", "secret-file": "/nonexistent"}}]}"#,
         "destination 'a': signature.header: \"Host\" is set by the relay"),
        (#"{"destinations": [{"name": "a", "url": "http://x/", "timeout-seconds": 2, "lease-seconds": 4}]}"#,
         "destination 'a': lease-seconds: expected more than two timeouts (4.0 seconds), got 4.0 seconds"),
    ])
    func refuses(_ json: String, _ expected: String) {
        #expect {
            _ = try Self.decode(json)
        } throws: { error in
            (error as? RelayError)?.reason.contains(expected) == true
        }
    }

    @Test("a file that is missing is named")
    func missingFile() {
        #expect {
            _ = try RelayConfiguration.load(path: "/nonexistent/relay.json")
        } throws: { error in
            (error as? RelayError)?.reason.hasPrefix("cannot read the relay configuration /nonexistent/relay.json") == true
        }
    }
}
