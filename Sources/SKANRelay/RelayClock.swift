import Foundation

/// The time and the waits of the relay, injected so that tests control them.
public struct RelayClock: Sendable {
    /// Now.
    public var now: @Sendable () -> Date
    /// Waits; throws when the task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// A number in [0, 1] for the backoff's jitter.
    public var jitter: @Sendable () -> Double

    /// Makes a clock.
    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void,
                jitter: @escaping @Sendable () -> Double) {
        self.now = now
        self.sleep = sleep
        self.jitter = jitter
    }

    /// The system's time, `Task.sleep` and a random jitter.
    public static let system = RelayClock(now: Date.init, sleep: { try await Task.sleep(for: $0) },
                                          jitter: { Double.random(in: 0 ... 1) })
}
