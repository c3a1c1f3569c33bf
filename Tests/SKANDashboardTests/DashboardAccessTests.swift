import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
@testable import SKANDashboard
import SKANHTTP
import SKANStore
import Testing

/// The dashboard's own listener under the one rule for private listeners (issue 31): with a token, every route it
/// serves answers 401 without it and its page with it, through the listener as `skan serve` and `skan dashboard`
/// build it (the access rule ahead of the routes), not a router made for the test.
@Suite("Dashboard access")
struct DashboardAccessTests {
    static let token = "0123456789abcdef0123"

    static func server() async throws -> DashboardServer {
        let dashboard = try await Dashboard(reader: MemoryPostbackReader(MemoryPostbackStore()))
        let access = try OperatorAccess(host: "127.0.0.1", token: token, options: .init(host: "--host", tokenFile: "--token-file"))
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return DashboardServer(dashboard: dashboard, access: access, port: 0, logger: logger)
    }

    @Test("with a token, every page, the CSV and the live feed answer 401 without it and 200 with it")
    func everyRoute() async throws {
        let paths = DashboardPage.allCases.map(\.path) + ["/report.csv", "/live.json"]
        #expect(paths.count >= 9)
        try await Self.server().application().test(.router) { client in
            for path in paths + ["/no-such-page"] {
                for headers: HTTPFields in [[:], [.authorization: "Bearer 0123456789abcdef012X"], [.cookie: "\(OperatorAccess.cookieName)=\(Self.token)"]] {
                    try await client.execute(uri: path, method: .get, headers: headers) { reply in
                        #expect(reply.status == .unauthorized, "\(path) \(headers)")
                        #expect(!String(buffer: reply.body).contains("<table"), "\(path)")
                    }
                }
            }
            for path in paths {
                try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer \(Self.token)"]) { reply in
                    #expect(reply.status == .ok, "\(path): \(String(buffer: reply.body).prefix(200))")
                }
            }
        }
    }
}
