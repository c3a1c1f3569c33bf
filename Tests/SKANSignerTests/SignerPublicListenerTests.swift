import Foundation
import Logging
import SKANHTTP
import SKANSigner
import SKANStore
import SKANTestSupport
import Testing

/// The signer's public listener is device-facing (Safari's `get-signed-payload`): it answers none of the private
/// routes, on the router or the event-loop path, with a token or without (issue 31).
@Suite("Signer public listener", .timeLimit(.minutes(1)))
struct SignerPublicListenerTests {
    /// Every private route as a request: nothing here may be signed, listed or registered on the public port.
    static let privateRoutes: [(String, String)] = [
        ("POST", "/v1/impressions"), ("POST", "/v1/openrtb/skadn"), ("POST", "/v1/web-ads"),
        ("GET", "/v1/keys"), ("GET", "/metrics"),
    ]

    @Test("the public port answers 404 for every private route, with or without the token; the private port signs",
          arguments: [true, false])
    func publicPort(onEventLoop: Bool) async throws {
        var keys = SignerKeys()
        keys.add(try SignerRouteTests.key("ad-network"), network: "example.skadnetwork")
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let access = try OperatorAccess(host: "127.0.0.1", token: SignerAccessTests.token,
                                        options: .init(host: "--host", tokenFile: "--token-file"))
        var signer = Signer(keys: keys, access: access, port: 0, logger: logger, webAdStore: MemoryWebAdStore(),
                            publicHost: "127.0.0.1", publicPort: 0)
        signer.answersImpressionsOnEventLoop = onEventLoop
        try await signer.composition().serve { bound in
            let (publicPort, privatePort) = (try #require(bound["public"]), try #require(bound["signer"]))
            let bodies = ["/v1/impressions": ImpressionFastPathTests.single, "/v1/openrtb/skadn": SignerAccessTests.openRTB,
                          "/v1/web-ads": WebAdTests.register]
            for (method, path) in Self.privateRoutes {
                for authorization in ["", "Authorization: Bearer \(SignerAccessTests.token)\r\n"] {
                    let body = bodies[path] ?? ""
                    let request = "\(method) \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\(authorization)"
                        + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
                    let reply = try #require(RawHTTP.parse(try await RawHTTP.exchange(port: publicPort, request, responses: 1)).first)
                    #expect(reply.status == 404, "\(method) \(path) on the public port: \(reply.status)")
                    #expect(!reply.body.contains("signature") && !reply.body.contains("Signature"), "\(path)")
                }
            }
            #expect(try #require(RawHTTP.parse(try await RawHTTP.exchange(
                port: publicPort, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", responses: 1)).first).status == 200)
            // The same impression on the private port, with the token, is signed.
            let signed = RawHTTP.post(ImpressionFastPathTests.single, path: "/v1/impressions",
                                      extraHeaders: "Authorization: Bearer \(SignerAccessTests.token)\r\n")
            let reply = try #require(RawHTTP.parse(try await RawHTTP.exchange(port: privatePort, signed, responses: 1)).first)
            #expect(reply.status == 200, "\(reply.body)")
        }
    }
}
