import ServiceLifecycle
import Synchronization

/// Runs a composition's start hooks (migrations) while the listeners answer only their probes; then the process is
/// ready, the workers start, and `onRunning` hears the ports if every listener is bound by then. Stays in the group
/// until it shuts down (a service that returns early would end the group).
struct StartHooks: Service, CustomStringConvertible {
    let hooks: [@Sendable () async throws -> Void]
    let signal: StartSignal
    let readiness: Readiness
    let startup: StartupReport
    let onRunning: @Sendable (BoundListeners) async -> Void

    var description: String { "start hooks" }

    func run() async throws {
        do {
            for hook in hooks { try await hook() }
        } catch {
            signal.finish(.failure(error))
            throw error
        }
        // Ready before anyone hears "running": a request sent on that word must not meet the startup gate.
        readiness.markReady()
        signal.finish(.success(()))
        if let all = startup.hooksFinished() { await onRunning(BoundListeners(ports: all)) }
        try? await gracefulShutdown()
    }
}

/// The last service of the group, so the first its graceful shutdown reaches: `/readyz` fails from that moment,
/// and the listeners stop accepting only after `delay`, so that a load balancer stops sending before connections
/// close.
struct Draining: Service, CustomStringConvertible {
    let readiness: Readiness
    let delay: Duration
    let wait: @Sendable (Duration) async throws -> Void

    var description: String { "drain" }

    func run() async throws {
        // Cancelled (the group failing) drains too, without the delay: nothing is left to wait for.
        try? await gracefulShutdown()
        readiness.drain()
        if delay > .zero, !Task.isCancelled { try? await wait(delay) }
    }
}

/// When a composition is running: every listener bound and the start hooks done, whichever comes last; reported
/// once.
final class StartupReport: Sendable {
    private struct State {
        var ports: [String: Int] = [:]
        var hooksDone = false
        var reported = false
    }

    private let expected: Set<String>
    private let state = Mutex(State())

    init(expected: Set<String>) {
        self.expected = expected
    }

    /// Records a bound listener; the ports when this completes the start.
    func bound(_ name: String, port: Int) -> [String: Int]? {
        state.withLock { state in
            state.ports[name] = port
            return Self.complete(&state, expected: expected)
        }
    }

    /// Records that the hooks finished; the ports when this completes the start.
    func hooksFinished() -> [String: Int]? {
        state.withLock { state in
            state.hooksDone = true
            return Self.complete(&state, expected: expected)
        }
    }

    private static func complete(_ state: inout State, expected: Set<String>) -> [String: Int]? {
        guard !state.reported, state.hooksDone, Set(state.ports.keys) == expected else { return nil }
        state.reported = true
        return state.ports
    }
}
