import Logging
import ServiceLifecycle

extension Collector {
    /// Serves while `body` runs, then shuts down as on SIGTERM (in-flight requests finish, queued postbacks
    /// commit) and closes the store. `body` receives the bound port, so the configuration may ask for port 0.
    ///
    /// For embedding the collector in a program that drives it, such as `skan demo` and end-to-end tests.
    public func serve<Result: Sendable>(
        whileRunning body: @escaping @Sendable (Int) async throws -> Result
    ) async throws -> Result {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let group = serviceGroup { port in
            portContinuation.yield(port)
            portContinuation.finish()
        }
        return try await withThrowingTaskGroup(of: Result?.self) { tasks in
            tasks.addTask {
                try await group.run()
                return nil
            }
            var port = 0
            for await bound in ports { port = bound }
            let outcome: Swift.Result<Result, any Error>
            do {
                outcome = .success(try await body(port))
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
