import Logging
import ServiceLifecycle

extension Collector {
    /// The ports a running collector bound.
    public struct Ports: Sendable {
        /// The device-facing port: postbacks and `/healthz`.
        public let device: Int
        /// The admin port: the operator routes.
        public let admin: Int
    }

    /// Serves while `body` runs, then shuts down as on SIGTERM (in-flight requests finish, queued postbacks
    /// commit) and closes the store. `body` receives the bound device port, so the configuration may ask for port 0.
    ///
    /// For embedding the collector in a program that drives it, such as `skan demo` and end-to-end tests.
    public func serve<Result: Sendable>(
        whileRunning body: @escaping @Sendable (Int) async throws -> Result
    ) async throws -> Result {
        try await serve(onPorts: { ports in try await body(ports.device) })
    }

    /// As ``serve(whileRunning:)``, with both bound ports: the device port and the admin port.
    public func serve<Result: Sendable>(
        onPorts body: @escaping @Sendable (Ports) async throws -> Result
    ) async throws -> Result {
        let (ports, portContinuation) = AsyncStream.makeStream(of: (Int?, Int?).self)
        let group = serviceGroup(onServerRunning: { port in portContinuation.yield((port, nil)) },
                                 onAdminRunning: { port in portContinuation.yield((nil, port)) })
        return try await withThrowingTaskGroup(of: Result?.self) { tasks in
            tasks.addTask {
                // A group that ends before both listeners are up (a port taken) ends the wait below too.
                defer { portContinuation.finish() }
                try await group.run()
                return nil
            }
            var device: Int?, admin: Int?
            for await (bound, boundAdmin) in ports {
                device = bound ?? device
                admin = boundAdmin ?? admin
                if device != nil && admin != nil { break }
            }
            portContinuation.finish()
            guard let device, let admin else {
                try await tasks.waitForAll()
                throw CollectorError(.serviceFailed, "the collector stopped before its listeners were up")
            }
            let outcome: Swift.Result<Result, any Error>
            do {
                outcome = .success(try await body(Ports(device: device, admin: admin)))
            } catch {
                outcome = .failure(error)
            }
            // The group closes the store as its last step.
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try outcome.get()
        }
    }
}
