import Logging
import SKANStore
import Synchronization

/// Logs store failures without flooding: a full disk fails every transaction, and at thousands of requests a
/// second one line per failure buried everything else (113,171 lines in 15 s).
///
/// A failure is logged at once when its code differs from the last one logged, or when `interval` has passed
/// since; otherwise it is counted, and the next line says how many failures (and entries) went unlogged.
public final class StoreFailureLog: Sendable {
    private struct State {
        var lastCode: StoreError.Code?
        var lastLogged: ContinuousClock.Instant?
        var suppressed = 0
        var suppressedEntries = 0
    }

    private let logger: Logger
    private let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex(State())

    /// A log onto `logger`, at most one line per `interval` for a repeated failure. `now` is injected for tests.
    public init(logger: Logger, interval: Duration = .seconds(10),
                now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.logger = logger
        self.interval = interval
        self.now = now
    }

    /// Records one failed operation that lost `entries` postbacks (0 for a read).
    public func record(_ error: StoreError, entries: Int) {
        let instant = now()
        let suppressed: (failures: Int, entries: Int)? = state.withLock { state in
            let isNew = state.lastCode != error.code
            let isDue = state.lastLogged.map { instant - $0 >= interval } ?? true
            guard isNew || isDue else {
                state.suppressed += 1
                state.suppressedEntries += entries
                return nil
            }
            defer { state = State(lastCode: error.code, lastLogged: instant) }
            return (state.suppressed, state.suppressedEntries)
        }
        guard let suppressed else { return }
        var metadata: Logger.Metadata = ["code": "\(error.code)", "error": "\(error.reason)", "entries": "\(entries)"]
        if suppressed.failures > 0 {
            metadata["suppressed-failures"] = "\(suppressed.failures)"
            metadata["suppressed-entries"] = "\(suppressed.entries)"
        }
        logger.error("the store failed", metadata: metadata)
    }
}
