import Synchronization

/// Whether a process should be sent traffic, as `/readyz` answers it: not while its start hooks (migrations) run,
/// not once its graceful shutdown has begun, and not while a part's own check (the store's health) fails.
/// `/livez` answers only that the process serves, in every phase.
///
/// One per ``ServiceComposition``, shared by all its listeners: the phase is read with one atomic load, so a
/// listener may ask on every connection.
public final class Readiness: Sendable {
    /// Where the process is in its life.
    public enum Phase: UInt8, Sendable {
        /// The listeners are bound; the start hooks (migrations) run. Only the probes are answered.
        case starting
        /// Serving.
        case ready
        /// A graceful shutdown has begun: requests are still answered, but `/readyz` fails, so that a load
        /// balancer stops sending before the connections close.
        case draining
    }

    private let phase = Atomic<UInt8>(Phase.starting.rawValue)
    private let checks = Mutex<[@Sendable () async -> String?]>([])

    /// A process that is starting.
    public init() {}

    /// The current phase.
    public var current: Phase { Phase(rawValue: phase.load(ordering: .acquiring)) ?? .draining }

    /// The start hooks finished: serving. A process already draining stays draining.
    public func markReady() {
        _ = phase.compareExchange(expected: Phase.starting.rawValue, desired: Phase.ready.rawValue,
                                  ordering: .acquiringAndReleasing)
    }

    /// The graceful shutdown began; from now on `/readyz` fails.
    public func drain() {
        phase.store(Phase.draining.rawValue, ordering: .releasing)
    }

    /// Adds a check `/readyz` runs while ready: it returns why the process cannot take traffic (`store: read-failed`),
    /// or `nil`.
    public func addCheck(_ check: @escaping @Sendable () async -> String?) {
        checks.withLock { $0.append(check) }
    }

    /// Why the process should not be sent traffic now, or `nil` when it should.
    public func problem() async -> String? {
        switch current {
        case .starting: return "starting"
        case .draining: return "draining"
        case .ready: break
        }
        for check in checks.withLock({ $0 }) {
            if let problem = await check() { return problem }
        }
        // A shutdown that began while the checks ran wins: the answer must not say ready after it started.
        return current == .ready ? nil : "draining"
    }
}
