import Hummingbird
import NIOCore

/// One listener of a process, as ``ServiceComposition`` builds it: where it binds, the option that names it on the
/// command line (for errors), and the routes it serves. One Hummingbird application is made per listener.
///
/// A private listener (``access`` set) is under ``OperatorAccess``'s rule: ``OperatorAccessMiddleware`` is added
/// first on its router, so that every route and every 404 is behind it; its event-loop fast paths take the same
/// `access`. A device-facing listener (``access`` `nil`) must serve only what a device needs.
public struct Listener: Sendable {
    /// The listener's name in logs, in the connection budget and in ``BoundListeners`` (`device`, `admin`, ...).
    public let name: String
    /// The command-line option that sets its port (`--port`, `--admin-port`, ...), named when it cannot bind.
    public let option: String
    /// The address it binds.
    public let host: String
    /// The port; 0 picks a free one.
    public let port: Int
    /// The rule of a private listener; `nil` for a device-facing one.
    public let access: OperatorAccess?
    /// Whether the private rule also takes the dashboard's login form and session cookie.
    public let login: Bool
    /// Adds the listener's routes (its services' `addRoutes(to:)`).
    let routes: @Sendable (Router<PeerRequestContext>) -> Void
    /// Handlers after the front door's, made fresh per connection (an ``EventLoopFastPath``).
    let handlers: @Sendable () -> [any RemovableChannelHandler]
    /// Event loops of its own (the collector's `--event-loops`); `nil`: the process's shared ones.
    let eventLoopGroup: (any EventLoopGroup)?
    /// The per-client rate limit of a device-facing listener's device routes; `nil`: none.
    public var rateLimit: RateLimitRule?

    /// A device-facing listener: no access rule, so only what a device needs belongs on it.
    public static func device(_ name: String, option: String, host: String, port: Int,
                              eventLoopGroup: (any EventLoopGroup)? = nil,
                              handlers: @escaping @Sendable () -> [any RemovableChannelHandler] = { [] },
                              rateLimit: RateLimitRule? = nil,
                              routes: @escaping @Sendable (Router<PeerRequestContext>) -> Void) -> Listener {
        Listener(name: name, option: option, host: host, port: port, access: nil, login: false, routes: routes,
                 handlers: handlers, eventLoopGroup: eventLoopGroup, rateLimit: rateLimit)
    }

    /// A private listener on `access`'s address, under its rule (`login`: with the dashboard's login form).
    public static func `private`(_ name: String, option: String, access: OperatorAccess, port: Int, login: Bool = false,
                                 handlers: @escaping @Sendable () -> [any RemovableChannelHandler] = { [] },
                                 routes: @escaping @Sendable (Router<PeerRequestContext>) -> Void) -> Listener {
        Listener(name: name, option: option, host: access.bindHost, port: port, access: access, login: login,
                 routes: routes, handlers: handlers, eventLoopGroup: nil, rateLimit: nil)
    }

    /// The router this listener serves: the probes first when given `readiness` (they tell nothing but the phase,
    /// so no token is asked for them), the access rule next when private, then the routes.
    public func router(readiness: Readiness? = nil) -> Router<PeerRequestContext> {
        let router = Router(context: PeerRequestContext.self)
        if let readiness { router.add(middleware: ProbeMiddleware(readiness)) }
        if rateLimit != nil { router.add(middleware: RateLimitMiddleware()) }
        if let access { router.add(middleware: OperatorAccessMiddleware(access, login: login)) }
        routes(router)
        return router
    }
}

/// The ports the listeners of a running composition bound, by listener name.
public struct BoundListeners: Sendable {
    /// Port by ``Listener/name``.
    public let ports: [String: Int]

    /// The port `name` bound, or `nil` when there is no such listener.
    public subscript(name: String) -> Int? { ports[name] }
}
