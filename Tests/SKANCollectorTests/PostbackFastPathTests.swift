import Foundation
import Logging
import NIOCore
import NIOPosix
@testable import SKANCollector
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import SKANHTTP
import Testing

/// What only raw HTTP/1.1 on one connection shows: pipelining, chunked bodies, connections closed on purpose.
/// (The replies themselves are checked over both transports in `CollectorRouteTests` and `MalformedBodyTests`.)
@Suite("Postbacks answered on the event loop", .timeLimit(.minutes(1)))
struct PostbackFastPathTests {
    /// Runs a collector on loopback and sends `requests` in one write on one connection; returns everything the
    /// server sent until it had answered `responses` times or closed the connection.
    static func exchange(_ requests: String, responses: Int,
                         configuration: CollectorConfiguration = CollectorConfiguration(port: 0)) async throws -> String {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let collector = try Collector(configuration: configuration,
                                      store: try SQLitePostbackStore(inMemoryWith: RejectionCap()),
                                      verifier: TestPostbacks.verifier, logger: logger)
        return try await collector.serve { port in
            try await RawHTTP.exchange(port: port, requests, responses: responses)
        }
    }

    static func parse(_ text: String) -> [(status: Int, headers: [String: String], body: String)] { RawHTTP.parse(text) }

    static func post(_ body: String, path: String = "/postbacks", extraHeaders: String = "") -> String {
        RawHTTP.post(body, path: path, extraHeaders: extraHeaders)
    }

    @Test("answers pipelined requests in order, postbacks and router requests mixed")
    func pipelined() async throws {
        let postback = TestPostbacks.postback().json
        let requests = Self.post(postback) + "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n" + Self.post(postback)
            + Self.post("{") + Self.post(TestPostbacks.postback().json, path: "/.well-known/skadnetwork/report-attribution")
        let replies = Self.parse(try await Self.exchange(requests, responses: 5))
        #expect(replies.map(\.status) == [200, 200, 200, 400, 200])
        #expect(replies.map(\.body).map { CollectorHarness.json($0)["status"] as? String }
            == ["accepted", "ok", "duplicate", "malformed", "accepted"])
        #expect(replies.allSatisfy { $0.headers["content-type"] == "application/json" })
        #expect(replies.allSatisfy { $0.headers["date"]?.hasSuffix(" GMT") == true })
        #expect(replies.allSatisfy { $0.headers["connection"] == nil }, "the connection stays open")
    }

    @Test("answers 413 to a chunked body as soon as it passes the limit, and closes the connection after it")
    func chunkedTooLarge() async throws {
        let chunk = String(repeating: "x", count: 600)
        let request = "POST /postbacks HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n" + String(repeating: "258\r\n\(chunk)\r\n", count: 3) + "0\r\n\r\n"
        // Asks for two replies: only the close ends the exchange after the one 413.
        let text = try await Self.exchange(request, responses: 2,
                                           configuration: CollectorConfiguration(port: 0, bodyLimit: 1000))
        let replies = Self.parse(text)
        #expect(replies.map(\.status) == [413])
        #expect(replies.first?.headers["connection"] == "close")
    }

    @Test("answers 413 to a declared length over the limit, and closes the connection after the body")
    func declaredTooLarge() async throws {
        let body = String(repeating: "x", count: 1500)
        let text = try await Self.exchange(Self.post(body), responses: 2,
                                           configuration: CollectorConfiguration(port: 0, bodyLimit: 1000))
        #expect(Self.parse(text).map(\.status) == [413])
    }

    @Test("answers 415 from the headers, skips the body, and keeps the connection for the next request")
    func unsupportedTypeKeepsConnection() async throws {
        let refused = "POST /postbacks HTTP/1.1\r\nHost: test\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"
        let replies = Self.parse(try await Self.exchange(refused + Self.post(TestPostbacks.postback().json),
                                                         responses: 2))
        #expect(replies.map(\.status) == [415, 200])
    }

    // Both paths answer alike, so this checks the reply, not which path gave it.
    @Test("accepts a postback sent with Expect: 100-continue")
    func expectContinue() async throws {
        let postback = TestPostbacks.postback().json
        let replies = Self.parse(try await Self.exchange(Self.post(postback, extraHeaders: "Expect: 100-continue\r\n"),
                                                         responses: 1))
        #expect(replies.last?.status == 200)
        #expect(replies.last.map { CollectorHarness.json($0.body)["status"] as? String } == "accepted")
    }

    @Test("matches postback paths as the router does: query strings and a trailing slash do not matter", arguments: [
        ("/postbacks", "/postbacks"), ("/postbacks/?x=1", "/postbacks"), ("/", "/"),
        ("/.well-known/skadnetwork/report-attribution", "/.well-known/skadnetwork/report-attribution"),
        ("/v1/impressions///#top", "/v1/impressions"), ("//", "/"), ("/?/x", "/"), ("", ""),
        ("/caf\u{E9}/?q=/", "/caf\u{E9}"), ("/e\u{301}/", "/e\u{301}"),
    ])
    func normalizedPaths(path: String, expected: String) {
        #expect(RoutePath.normalized(path) == expected)
    }

    @Test("formats the Date header as RFC 9110 does")
    func httpDate() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(1_795_000_000) == "Wed, 18 Nov 2026 11:06:40 GMT")
    }
}
