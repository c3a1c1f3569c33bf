import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import SKANCore
import SKANHTTP
@testable import SKANSigner
import SKANTestSupport
import Testing

/// `POST /v1/impressions` answered on the event loop (``ImpressionResponder`` in ``EventLoopFastPath``): the same
/// bytes as the router's, in order with the router's own replies on one connection.
@Suite("Impressions answered on the event loop", .timeLimit(.minutes(1)))
struct ImpressionFastPathTests {
    static let single = #"{"version":"4.0","ad-network-id":"example.skadnetwork","source-identifier":5239,"itunes-item-id":525463029,"source-app-id":0}"#

    static func signer(onEventLoop: Bool) throws -> Signer {
        var keys = SignerKeys()
        keys.add(try SignerRouteTests.key("ad-network"), network: "example.skadnetwork")
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        // AdAttributionKit's JWS and SKAdNetwork's DER signatures differ on every signing (ECDSA's random nonce);
        // the same time and nonce keep everything else equal.
        var signer = Signer(keys: keys, port: 0, logger: logger, now: { Date(timeIntervalSince1970: 1_700_000_000) },
                            makeNonce: { UUID(uuidString: "68753A44-4D6F-1226-9C60-0050E4C00067")! })
        signer.answersImpressionsOnEventLoop = onEventLoop
        return signer
    }

    /// Each request on a connection of its own, to a live signer; the replies' statuses and bodies, signatures cut.
    static func replies(onEventLoop: Bool, _ requests: [String]) async throws -> [String] {
        try await signer(onEventLoop: onEventLoop).application().test(.live) { client in
            var replies: [String] = []
            for request in requests {
                let text = try await RawHTTP.exchange(port: try #require(client.port), request, responses: 1)
                let reply = try #require(RawHTTP.parse(text).first, "no reply to \(request.prefix(60))")
                replies.append("\(reply.status) \(reply.headers["content-type"] ?? "-") \(Self.unsigned(reply.body))")
            }
            return replies
        }
    }

    /// The body with every signature's value replaced: the rest must be byte for byte the same.
    static func unsigned(_ body: String) -> String {
        body.replacingOccurrences(of: #"AttributionSignature":"[^"]*""#, with: #"AttributionSignature":"…""#,
                                  options: .regularExpression)
    }

    @Test("the event loop answers as the router does: signed, batched, refused, other routes")
    func sameReplies() async throws {
        let batch = "[" + Array(repeating: Self.single, count: 3).joined(separator: ",") + "]"
        let requests = [
            RawHTTP.post(Self.single, path: "/v1/impressions"),
            RawHTTP.post(batch, path: "/v1/impressions/?source=test"),
            RawHTTP.post("{", path: "/v1/impressions"),
            RawHTTP.post(#"[{"version":"4.0"},{"version":"9.9"}]"#, path: "/v1/impressions"),
            RawHTTP.post(Self.single.replacingOccurrences(of: "example.skadnetwork", with: "other.skadnetwork"), path: "/v1/impressions"),
            "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n",
        ]
        let fast = try await Self.replies(onEventLoop: true, requests)
        let router = try await Self.replies(onEventLoop: false, requests)
        #expect(fast == router)
        #expect(fast.map { $0.prefix(3) } == ["200", "200", "400", "400", "400", "200"])
        #expect(fast[3].contains(#""index":0"#), "the first bad request of the batch is named: \(fast[3])")
    }

    @Test("pipelined on one connection: impressions and the router's replies come back in order")
    func pipelined() async throws {
        let requests = RawHTTP.post(Self.single, path: "/v1/impressions") + "GET /v1/keys HTTP/1.1\r\nHost: test\r\n\r\n"
            + RawHTTP.post("[" + Self.single + "]", path: "/v1/impressions") + RawHTTP.post("{", path: "/v1/impressions")
        let replies = try await Self.signer(onEventLoop: true).application().test(.live) { client in
            RawHTTP.parse(try await RawHTTP.exchange(port: try #require(client.port), requests, responses: 4))
        }
        #expect(replies.map(\.status) == [200, 200, 200, 400])
        #expect(replies[0].body.hasPrefix("{") && replies[2].body.hasPrefix("[{"))
        #expect(!replies[1].body.contains("SKStoreProductParameter"), "the keys' reply is the router's: \(replies[1].body)")
    }

    @Test("the handler itself answers an impression and passes everything else on to the router")
    func answersOnTheLoop() throws {
        let signer = try Self.signer(onEventLoop: true)
        let responder = ImpressionResponder(keys: signer.keys, now: signer.now, makeNonce: signer.makeNonce,
                                            signed: signer.signed, refused: signer.refused)
        let channel = EmbeddedChannel(handler: EventLoopFastPath(responder, date: HTTPDate()))
        // A reply is written only to an active channel.
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        var head = HTTPRequest(method: .post, scheme: nil, authority: "test", path: "/v1/impressions")
        head.headerFields[.contentType] = "application/json"
        try channel.writeInbound(HTTPRequestPart.head(head))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: Self.single)))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil, "the router saw the impression")
        guard case .head(let response) = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no response head written")
            return
        }
        #expect(response.status == .ok && response.headerFields[.contentType] == "application/json")
        guard case .body(let body) = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no response body written")
            return
        }
        #expect(try SignedImpression.parse(Array(body.readableBytesView)).get().impression.timestamp == 1_700_000_000_000)
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "test", path: "/healthz")))
        guard case .head(let passed) = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("GET /healthz was not passed on")
            return
        }
        #expect(passed.path == "/healthz")
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test("a declared length over the limit: 413 from the head, with the router's body, and the connection closes")
    func tooLarge() async throws {
        let signer = try Self.signer(onEventLoop: true)
        let responder = ImpressionResponder(keys: signer.keys, now: signer.now, makeNonce: signer.makeNonce,
                                            signed: signer.signed, refused: signer.refused)
        let channel = EmbeddedChannel(handler: EventLoopFastPath(responder, date: HTTPDate()))
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        var head = HTTPRequest(method: .post, scheme: nil, authority: "test", path: "/v1/impressions")
        head.headerFields[.contentLength] = "2000000"
        try channel.writeInbound(HTTPRequestPart.head(head))
        guard case .head(let response) = try channel.readOutbound(as: HTTPResponsePart.self),
              case .body(let body) = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no 413 written")
            return
        }
        #expect(response.status == .contentTooLarge && response.headerFields[.connection] == "close")
        #expect(String(buffer: body) == ImpressionReply.tooLarge.body)
        // The router's reply to a body over the limit is the same.
        let router = Router()
        signer.addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let big = ByteBuffer(repeating: UInt8(ascii: " "), count: ImpressionResponder.limit + 1)
            try await client.execute(uri: "/v1/impressions", method: .post, body: big) { reply in
                #expect(reply.status == .contentTooLarge)
                #expect(String(buffer: reply.body) == ImpressionReply.tooLarge.body)
            }
        }
        _ = try channel.finish(acceptAlreadyClosed: true)
    }
}
