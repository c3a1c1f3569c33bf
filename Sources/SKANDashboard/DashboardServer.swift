import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

/// A dashboard on a listener of its own, with its access rule: loopback is open to this machine; any other address
/// needs a token, so business data never sits on an open port.
public struct DashboardServer: Sendable {
    let dashboard: Dashboard
    let host: String
    let port: Int
    let token: String?
    let logger: Logger

    /// Checks the access rule before anything listens; `options` name the command's own options in the error.
    public init(dashboard: Dashboard, host: String, port: Int, token: String?, logger: Logger,
                options: (host: String, token: String) = ("--host", "--token-file")) throws(DashboardError) {
        if token == nil && !Self.isLoopback(host) {
            throw DashboardError(.access, "\(options.host) \(host) is not a loopback address: the dashboard shows business "
                                 + "data, so give it \(options.token) FILE (requests then need Authorization: Bearer TOKEN)")
        }
        self.dashboard = dashboard
        self.host = host
        self.port = port
        self.token = token
        self.logger = logger
    }

    /// `127.0.0.0/8`, `::1` and `localhost`.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// The HTTP service, for a caller that runs it in its own service group (`skan serve --dashboard-port`).
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some Service {
        let router = Router()
        if let token { router.add(middleware: BearerTokenMiddleware(token: token)) }
        dashboard.addRoutes(to: router)
        return Application(router: router,
                           configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
                           onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
                           logger: logger)
    }

    /// Serves until SIGINT or SIGTERM; `onServerRunning` receives the bound port.
    public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [application(onServerRunning: onServerRunning)], gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }

    /// A token from a file: its first line, which must not be empty; the file must not be readable by others.
    public static func token(fromFile path: String) throws(DashboardError) -> String {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let data = FileManager.default.contents(atPath: path) else {
            throw DashboardError(.access, "--token-file: cannot read \(path)")
        }
        if let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
            throw DashboardError(.access, "--token-file: \(path) has mode \(String(mode, radix: 8)); it must not be readable "
                                 + "by group or others (chmod 600 \(path))")
        }
        let token = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard token.count >= 16 else {
            throw DashboardError(.access, "--token-file: \(path) must hold a token of at least 16 characters on its first line")
        }
        return token
    }
}
