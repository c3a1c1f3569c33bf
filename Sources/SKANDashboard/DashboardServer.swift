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
    let frontDoor: FrontDoor

    /// A dashboard served at `access`'s address (see ``OperatorAccess/init(host:token:options:resolve:)``, which
    /// refuses a listener beyond loopback without a token before anything listens), through `frontDoor`: its
    /// timeouts and connection budget, shared with the other listeners of the process when it hosts more.
    public init(dashboard: Dashboard, access: OperatorAccess, port: Int, logger: Logger,
                frontDoor: FrontDoor = FrontDoor()) {
        self.dashboard = dashboard
        self.access = access
        self.port = port
        self.logger = logger
        self.frontDoor = frontDoor
    }

    /// The HTTP service, for a caller that runs it in its own service group (`skan serve --dashboard-port`).
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some Service {
        let router = Router()
        // First, so that it guards every page and the 404s alike; `/login` (a form, posted) sets the session cookie.
        router.add(middleware: OperatorAccessMiddleware(access, login: true))
        dashboard.addRoutes(to: router)
        let (door, gate) = (frontDoor, frontDoor.gate("dashboard"))
        return Application(router: router,
                           server: .http1(configuration: .init(additionalChannelHandlers: door.handlers())),
                           configuration: door.configuration(address: .hostname(access.bindHost, port: port), gate: gate),
                           onServerRunning: door.running(gate, then: onServerRunning),
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
