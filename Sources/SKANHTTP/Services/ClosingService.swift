import ServiceLifecycle

/// Holds something open (a store, a reader) while the group serves and closes it when the group shuts down, as a
/// ``ServiceComposition`` resource: after the listeners and the workers that use it have stopped.
///
/// A close that throws ends the group with its error: a store that cannot close may not hold what was
/// acknowledged, so that is not a clean stop, whatever came before.
public struct ClosingService: Service, CustomStringConvertible {
    /// What is closed, for the group's logs.
    public let description: String
    let close: @Sendable () async throws -> Void

    /// A service that runs `close` once the group shuts down.
    public init(_ description: String, close: @escaping @Sendable () async throws -> Void) {
        self.description = description
        self.close = close
    }

    public func run() async throws {
        // Cancellation (a shutdown past its deadline) ends the wait too: the thing is closed either way.
        try? await gracefulShutdown()
        // After the deadline this task is cancelled, and the engines' async calls (GRDB's, postgres-nio's) throw
        // CancellationError before they start: the close ran halfway and `skan serve` exited 1 though nothing was
        // wrong. So the close runs in a task of its own, which does not inherit the cancellation, awaited here:
        // the deadline cuts slow clients off, never the close.
        let close = close
        let closing = Task { () async -> (any Error)? in
            do {
                try await close()
                return nil
            } catch {
                return error
            }
        }
        if let error = await closing.value { throw error }
    }
}
