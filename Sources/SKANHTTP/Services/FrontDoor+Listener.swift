import Hummingbird
import Logging

extension FrontDoor {
    /// The Hummingbird application of `listener`, through this door (its timeouts, its place in the budget), not yet
    /// running: what ``ServiceComposition`` makes for each listener, and what router-level tests drive.
    /// `onServerRunning` receives the bound port.
    public func application(for listener: Listener, logger: Logger,
                            onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> Application<RouterResponder<BasicRequestContext>> {
        let gate = gate(listener.name)
        let extra = listener.handlers
        return Application(
            router: listener.router(),
            // An autoclosure, called per connection: each handler holds one connection's state.
            server: .http1(configuration: .init(additionalChannelHandlers: self.handlers(extra()))),
            configuration: configuration(address: .hostname(listener.host, port: listener.port), gate: gate),
            onServerRunning: running(gate, then: onServerRunning),
            eventLoopGroupProvider: listener.eventLoopGroup.map { .shared($0) } ?? .singleton,
            logger: logger)
    }
}
