import Foundation
import Hummingbird
import Logging
import SKANHTTP
import SKANStore
import ServiceLifecycle

/// A dashboard on a listener of its own, under ``OperatorAccess``'s rule: loopback is open to this machine; any
/// other address needs a token, so business data never sits on an open port.
public struct DashboardServer: Sendable {
    let dashboard: Dashboard
    let access: OperatorAccess
    let port: Int
    let logger: Logger
    let frontDoor: FrontDoor
    /// A reader the service group closes once the listener has stopped (before the stores opened earlier close, so
    /// that SQLite's last connection is a writer's and no WAL is left); `nil`: the caller closes its reader.
    public var ownedReader: (any PostbackReader)?
    /// A campaign map store the service group closes with the reader; `nil`: the caller closes it, if any.
    public var ownedCampaignMaps: (any CampaignMapStore)?
    /// The command-line option that sets the port, named when it cannot bind (`--dashboard-port` in `skan serve`).
    public var portOption = "--port"

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

    /// The dashboard's listener (private, with the login form): the access rule first, so that it guards every
    /// page and the 404s alike; `/login` (a form, posted) sets the session cookie.
    public var listener: Listener {
        let dashboard = dashboard
        return .private("dashboard", option: portOption, access: access, port: port, login: true) { router in
            dashboard.addRoutes(to: router)
        }
    }

    /// The HTTP application, not yet running, for router-level tests.
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        frontDoor.application(for: listener, logger: logger, onServerRunning: onServerRunning)
    }

    /// Serves until SIGINT or SIGTERM, alone in its process's service group; `onServerRunning` receives the port.
    public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        var composition = ServiceComposition(frontDoor: frontDoor, logger: logger)
        composition.add(self)
        try await composition.run { bound in await onServerRunning(bound["dashboard"] ?? 0) }
    }
}

extension DashboardServer: ComposedPart {
    /// Adds the dashboard's listener and, when it owns its reader, the service that closes it.
    public func compose(into composition: inout ServiceComposition) {
        // After the listener stopped, before any resource added earlier (the collector's store) closes.
        if let ownedReader {
            composition.add(resource: "dashboard reader", running: { await ownedReader.run() }) { await ownedReader.close() }
        }
        if let ownedCampaignMaps {
            composition.add(resource: "dashboard campaign map", running: { await ownedCampaignMaps.run() }) {
                await ownedCampaignMaps.close()
            }
        }
        composition.add(listener)
    }
}
