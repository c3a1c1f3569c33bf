import ServiceLifecycle

/// Runs a resource's own work for as long as the group runs (a PostgreSQL pool's connections and calls: a store's
/// `run()`), as a ``ServiceComposition`` resource added before the ``ClosingService`` that closes the resource, so
/// that it stops after the close: a store may still query while it closes.
///
/// The work ends when the resource closes (it returns) or when the group cancels what is left; the service then
/// stays until its turn to stop, since a service that returns early would end the group.
public struct HostingService: Service, CustomStringConvertible {
    /// What is run, for the group's logs.
    public let description: String
    let work: @Sendable () async -> Void

    /// A service that runs `work` while the group runs.
    public init(_ description: String, work: @escaping @Sendable () async -> Void) {
        self.description = description
        self.work = work
    }

    public func run() async throws {
        await work()
        try? await gracefulShutdown()
    }
}

extension ServiceComposition {
    /// Adds a resource that has work of its own (a store and its connection pool): `work` runs for as long as the
    /// group, and `close` runs once the group shuts down, after the listeners and workers stopped and before `work`
    /// stops.
    public mutating func add(resource description: String, running work: @escaping @Sendable () async -> Void,
                             close: @escaping @Sendable () async throws -> Void) {
        add(resource: HostingService("\(description) (its own work)", work: work))
        add(resource: ClosingService(description, close: close))
    }
}
