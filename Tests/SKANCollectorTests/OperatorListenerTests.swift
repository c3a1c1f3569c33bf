import Foundation
import HTTPTypes
import NIOCore
import SKANCollector
import SKANHTTP
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// The one rule for private listeners (``OperatorAccess``), decided on addresses, never on a host name's spelling.
@Suite("Private listener rule", .temporaryFolder, .timeLimit(.minutes(1)))
struct OperatorAccessTests {
    static let options = OperatorAccess.Options(host: "--admin-host", tokenFile: "--admin-token-file")
    static let token = "0123456789abcdef0123"

    @Test("loopback addresses need no token", arguments: ["127.0.0.1", "127.5.6.7", "::1", "[::1]", "::ffff:127.0.0.1"])
    func loopback(host: String) throws {
        let access = try OperatorAccess(host: host, token: nil, options: Self.options)
        #expect(access.isLoopback && !access.requiresToken)
        #expect(access.admits([:]))
    }

    @Test("any other address refuses to start without a token, naming the option",
          arguments: ["0.0.0.0", "::", "10.0.0.1", "203.0.113.7", "::ffff:10.0.0.1"])
    func refused(host: String) throws {
        let error = #expect(throws: OperatorAccessError.self) { try OperatorAccess(host: host, token: nil, options: Self.options) }
        #expect(error?.reason.contains("--admin-token-file") == true, "\(error?.reason ?? "")")
        #expect(error?.reason.contains("--admin-host \(host)") == true)
        let guarded = try OperatorAccess(host: host, token: Self.token, options: Self.options)
        #expect(!guarded.isLoopback && guarded.requiresToken)
    }

    @Test("a host name that begins with 127. is a name, not a loopback address: it is decided on what it resolves to")
    func nameSpelledLikeLoopback() throws {
        // A DNS name the attacker controls, resolving to a public address.
        let error = #expect(throws: OperatorAccessError.self) {
            try OperatorAccess(host: "127.evil.example", token: nil, options: Self.options,
                               resolve: { _ in try SocketAddress(ipAddress: "203.0.113.7", port: 0) })
        }
        #expect(error?.reason.contains("203.0.113.7") == true, "\(error?.reason ?? "")")
        // The same name resolving to loopback is loopback, and the listener binds the address checked, not the name.
        let local = try OperatorAccess(host: "127.evil.example", token: nil, options: Self.options,
                                       resolve: { _ in try SocketAddress(ipAddress: "127.0.0.1", port: 0) })
        #expect(local.isLoopback && local.bindHost == "127.0.0.1")
        #expect(!OperatorAccess.isLoopback(try SocketAddress(ipAddress: "128.0.0.1", port: 0)))
        #expect(!OperatorAccess.isLoopback(try SocketAddress(ipAddress: "::2", port: 0)))
    }

    @Test("with a token: the bearer header or the session cookie gets in, never the token as a cookie")
    func admits() throws {
        let access = try OperatorAccess(host: "127.0.0.1", token: Self.token, options: Self.options)
        #expect(!access.admits([:]))
        #expect(access.admits([.authorization: "Bearer \(Self.token)"]))
        #expect(access.admits([.authorization: "bearer \(Self.token)"]))
        #expect(!access.admits([.authorization: "Bearer \(Self.token)x"]))
        #expect(!access.admits([.authorization: "Bearer \(Self.token.dropLast())"]))
        #expect(!access.admits([.authorization: "Basic \(Self.token)"]))
        #expect(!access.admits([.cookie: "\(OperatorAccess.cookieName)=\(Self.token)"]))
        #expect(access.login(offered: "wrong", secure: false) == nil)
        let cookie = try #require(access.login(offered: Self.token, secure: false))
        #expect(!cookie.contains(Self.token) && cookie.contains("HttpOnly") && !cookie.contains("Secure"))
        let pair = String(cookie.split(separator: ";")[0])
        #expect(access.admits([.cookie: "other=1; " + pair]))
        #expect(try #require(access.login(offered: Self.token, secure: true)).hasSuffix("; Secure"))
        #expect(OperatorAccess.cameOverTLS([HTTPField.Name("X-Forwarded-Proto")!: "https"]))
        #expect(!OperatorAccess.cameOverTLS([:]))
        // Another process (another instance) has another session value.
        let other = try OperatorAccess(host: "127.0.0.1", token: Self.token, options: Self.options)
        #expect(!other.admits([.cookie: pair]))
    }

    @Test("a token file must be private and hold at least 16 characters")
    func tokenFile() throws {
        let folder = try TemporaryFolder.current.url
        let file = folder.appendingPathComponent("token").path
        try "\(Self.token)\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let open = #expect(throws: OperatorAccessError.self) { try OperatorAccess.token(fromFile: file, option: "--admin-token-file") }
        #expect(open?.reason.hasPrefix("--admin-token-file:") == true)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        #expect(try OperatorAccess.token(fromFile: file, option: "--admin-token-file") == Self.token)
        try "short\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        #expect(throws: OperatorAccessError.self) { try OperatorAccess.token(fromFile: file, option: "--admin-token-file") }
    }
}

/// The collector's listeners by audience: operator routes on the admin listener only, under the rule.
@Suite("Collector listeners by audience", .timeLimit(.minutes(1)))
struct CollectorListenerTests {
    typealias H = CollectorHarness
    static let operatorRoutes = ["/stats", "/metrics", "/postbacks/6aafb7a5-0170-41b5-bbe4-fe71dedf1e30"]

    @Test("the device port answers 404 for every operator route, and a stored postback's row cannot be read from it",
          arguments: Transport.allCases)
    func devicePort(transport: Transport) async throws {
        try await H.withCollector(transport) { collector, device in
            let postback = TestPostbacks.postback()
            #expect(try await H.post(device, Array(postback.json.utf8)).status == 200)
            for path in Self.operatorRoutes + ["/postbacks/\(postback.transactionID)", "/postbacks/\(postback.transactionID)/"] {
                let reply = try await H.get(device, path)
                #expect(reply.status == 404, "\(path)")
                #expect(!reply.body.contains(postback.transactionID) && !reply.body.contains("postbacks-by"), "\(path)")
            }
            #expect(try await H.get(device, "/healthz").status == 200)
            try await H.withAdmin(collector, transport) { admin in
                let row = try await H.get(admin, "/postbacks/\(postback.transactionID)")
                #expect(row.status == 200 && row.body.contains(postback.transactionID))
            }
        }
    }

    @Test("with a token, every operator route answers 401 without it and 200 with it", arguments: Transport.allCases)
    func adminToken(transport: Transport) async throws {
        let access = try OperatorAccess(host: "127.0.0.1", token: OperatorAccessTests.token, options: OperatorAccessTests.options)
        try await H.withCollector(transport, configuration: CollectorConfiguration(port: 0, adminAccess: access)) { collector, device in
            let postback = TestPostbacks.postback()
            #expect(try await H.post(device, Array(postback.json.utf8)).status == 200)
            try await H.withAdmin(collector, transport) { admin in
                for path in ["/stats", "/metrics", "/healthz", "/postbacks/\(postback.transactionID)", "/no-such-route"] {
                    let refused = try await H.get(admin, path)
                    #expect(refused.status == 401, "\(path)")
                    #expect(!refused.body.contains(postback.transactionID))
                    let wrong = try await H.get(admin, path, headers: [.authorization: "Bearer 0123456789abcdef012X"])
                    #expect(wrong.status == 401, "\(path)")
                }
                for path in ["/stats", "/metrics", "/healthz", "/postbacks/\(postback.transactionID)"] {
                    let reply = try await H.get(admin, path, headers: [.authorization: "Bearer \(OperatorAccessTests.token)"])
                    #expect(reply.status == 200, "\(path)")
                }
            }
        }
    }

    @Test("both listeners bind: the admin port is another port, and serve(onPorts:) gives both")
    func ports() async throws {
        let collector = try Collector(configuration: CollectorConfiguration(port: 0),
                                      store: try SQLitePostbackStore(inMemoryWith: RejectionCap()),
                                      verifier: TestPostbacks.verifier, logger: .init(label: "test"))
        let ports = try await collector.serve(onPorts: { ports in
            let stats = try await RawHTTP.exchange(port: ports.admin, "GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", responses: 1)
            let device = try await RawHTTP.exchange(port: ports.device, "GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", responses: 1)
            #expect(stats.hasPrefix("HTTP/1.1 200"))
            #expect(device.hasPrefix("HTTP/1.1 404"))
            return ports
        })
        #expect(ports.device != ports.admin && ports.device > 0 && ports.admin > 0)
    }
}
