import Foundation
import Hummingbird
import Logging
import SKANHTTP
import ServiceLifecycle
import UnixSignals

/// A dashboard on a listener of its own, under ``OperatorAccess``'s rule: loopback is open to this machine; any
/// other address needs a token, so business data never sits on an open port.
public struct DashboardServer: Sendable {
    let dashboard: Dashboard
    let access: OperatorAccess
    let port: Int
    let logger: Logger

    /// A dashboard served at `access`'s address (see ``OperatorAccess/init(host:token:options:resolve:)``, which
    /// refuses a listener beyond loopback without a token before anything listens).
    public init(dashboard: Dashboard, access: OperatorAccess, port: Int, logger: Logger) {
        self.dashboard = dashboard
        self.access = access
        self.port = port
        self.logger = logger
    }

    /// The HTTP service, for a caller that runs it in its own service group (`skan serve --dashboard-port`).
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some Service {
        let router = Router()
        // First, so that it guards every page and the 404s alike; `/login` (a form, posted) sets the session cookie.
        router.add(middleware: OperatorAccessMiddleware(access, login: true))
        dashboard.addRoutes(to: router)
        return Application(router: router,
                           configuration: ApplicationConfiguration(address: .hostname(access.bindHost, port: port),
                                                                   serverName: nil),
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
}
