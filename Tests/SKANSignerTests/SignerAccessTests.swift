import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SKANHTTP
import SKANSigner
import SKANStore
import SKANTestSupport
import Testing

/// The signer's private listener under the one rule for private listeners, on the router and the event-loop path.
@Suite("Signer access", .timeLimit(.minutes(1)))
struct SignerAccessTests {
    static let token = "0123456789abcdef0123"
    static let openRTB = #"{"imp-ext-skadn":{"versions":["4.0"],"sourceapp":"880047117","skadnetids":["example.skadnetwork"]},"itunes-item-id":525463029,"source-identifier":5239}"#

    /// Every private route: method, path, body, and its status with the token.
    static let routes: [(HTTPRequest.Method, String, String, Int)] = [
        (.post, "/v1/impressions", ImpressionFastPathTests.single, 200),
        (.post, "/v1/openrtb/skadn", openRTB, 200),
        (.post, "/v1/web-ads", WebAdTests.register, 200),
        (.get, "/v1/keys", "", 200),
        (.get, "/healthz", "", 200),
        (.get, "/metrics", "", 200),
    ]

    static func signer(onEventLoop: Bool) throws -> Signer {
        var keys = SignerKeys()
        keys.add(try SignerRouteTests.key("ad-network"), network: "example.skadnetwork")
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let access = try OperatorAccess(host: "127.0.0.1", token: token, options: .init(host: "--host", tokenFile: "--token-file"))
        var signer = Signer(keys: keys, access: access, port: 0, logger: logger, webAdStore: MemoryWebAdStore())
        signer.answersImpressionsOnEventLoop = onEventLoop
        return signer
    }

    @Test("every route answers 401 without the token and its own status with it, through the router")
    func router() async throws {
        try await Self.signer(onEventLoop: false).application().test(.router) { client in
            for (method, path, body, status) in Self.routes {
                for headers: HTTPFields in [[:], [.authorization: "Bearer 0123456789abcdef012X"]] {
                    let refused = try await client.execute(uri: path, method: method, headers: headers.merging([.contentType: "application/json"]),
                                                           body: ByteBuffer(string: body)) { $0 }
                    #expect(refused.status == .unauthorized, "\(path)")
                    #expect(!String(buffer: refused.body).contains("Signature"), "\(path)")
                }
                let reply = try await client.execute(uri: path, method: method,
                                                     headers: [.authorization: "Bearer \(Self.token)", .contentType: "application/json"],
                                                     body: ByteBuffer(string: body)) { $0 }
                #expect(Int(reply.status.code) == status, "\(path): \(String(buffer: reply.body))")
            }
        }
    }

    @Test("the event-loop path for /v1/impressions signs nothing without the token: the router answers 401",
          arguments: [true, false])
    func eventLoop(onEventLoop: Bool) async throws {
        try await Self.signer(onEventLoop: onEventLoop).application().test(.live) { client in
            let port = try #require(client.port)
            let request = RawHTTP.post(ImpressionFastPathTests.single, path: "/v1/impressions")
            let bad = RawHTTP.post(ImpressionFastPathTests.single, path: "/v1/impressions",
                                   extraHeaders: "Authorization: Bearer 0123456789abcdef012X\r\n")
            let good = RawHTTP.post(ImpressionFastPathTests.single, path: "/v1/impressions",
                                    extraHeaders: "Authorization: Bearer \(Self.token)\r\n")
            // Pipelined on one connection: refused, refused, signed, refused, in order.
            let text = try await RawHTTP.exchange(port: port, request + bad + good + request, responses: 4)
            let replies = RawHTTP.parse(text)
            #expect(replies.map(\.status) == [401, 401, 200, 401])
            #expect(replies.filter { $0.body.contains("Signature") }.count == 1)
        }
    }
}

extension HTTPFields {
    func merging(_ other: HTTPFields) -> HTTPFields {
        var fields = self
        fields.append(contentsOf: other)
        return fields
    }
}
