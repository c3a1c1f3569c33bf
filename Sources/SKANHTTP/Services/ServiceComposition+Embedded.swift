import ServiceLifecycle

extension ServiceComposition {
    /// Serves while `body` runs, then shuts down as on SIGTERM (in-flight requests finish, queued work commits,
    /// stores close). `body` receives every listener's bound port, so listeners may ask for port 0.
    ///
    /// For programs that drive the services they host (`skan demo`, end-to-end tests).
    public func serve<Result: Sendable>(
        whileRunning body: @escaping @Sendable (BoundListeners) async throws -> Result
    ) async throws -> Result {
        let (bound, continuation) = AsyncStream.makeStream(of: BoundListeners.self)
        let group = serviceGroup { listeners in continuation.yield(listeners) }
        return try await withThrowingTaskGroup(of: Result?.self) { tasks in
            tasks.addTask {
                // A group that ends before every listener is up (a port taken, a migration failed) ends the wait.
                defer { continuation.finish() }
                try await group.run()
                return nil
            }
            var iterator = bound.makeAsyncIterator()
            guard let listeners = await iterator.next() else {
                try await tasks.waitForAll()
                throw ListenerError(.cannotListen, "the services stopped before their listeners were up")
            }
            let outcome: Swift.Result<Result, any Error>
            do {
                outcome = .success(try await body(listeners))
            } catch {
                outcome = .failure(error)
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try outcome.get()
        }
    }
}
