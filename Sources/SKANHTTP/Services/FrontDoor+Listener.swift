import Hummingbird
import Logging
import NIOCore

extension FrontDoor {
    /// The Hummingbird application of `listener`, through this door (its timeouts, its place in the budget), not yet
    /// running: what ``ServiceComposition`` makes for each listener, and what router-level tests drive.
    /// `onServerRunning` receives the bound port. With `readiness`, the listener answers `/livez` and `/readyz`
    /// (``ProbeMiddleware``) and, while the process starts, nothing else (``StartupGate``).
    public func application(for listener: Listener, logger: Logger, readiness: Readiness? = nil,
                            onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> Application<RouterResponder<PeerRequestContext>> {
        let gate = gate(listener.name)
        let extra = listener.handlers
        let rateLimit = listener.rateLimit
        let starting: @Sendable () -> [any RemovableChannelHandler] = {
            var gates: [any RemovableChannelHandler] = []
            if let readiness, readiness.current == .starting { gates.append(StartupGate(readiness)) }
            // Ahead of the fast path and the router alike, so that neither is a way around the limit.
            if let rateLimit, rateLimit.limiter.configuration.isEnabled { gates.append(RateLimitGate(rateLimit)) }
            return gates
        }
        return Application(
            router: listener.router(readiness: readiness),
            // An autoclosure, called per connection: each handler holds one connection's state.
            server: .http1(configuration: .init(additionalChannelHandlers: self.handlers(starting() + extra()))),
            configuration: configuration(address: .hostname(listener.host, port: listener.port), gate: gate),
            onServerRunning: running(gate, then: onServerRunning),
            eventLoopGroupProvider: listener.eventLoopGroup.map { .shared($0) } ?? .singleton,
            logger: logger)
    }
}
