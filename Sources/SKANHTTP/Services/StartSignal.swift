import Synchronization

/// A one-time signal: the listener that runs the composition's start hooks opens it with their outcome; every
/// other listener waits for it before binding. A waiter that is cancelled (the group ending) stops waiting.
final class StartSignal: Sendable {
    private enum State {
        case waiting([Int: CheckedContinuation<Void, any Error>], next: Int)
        case done(Result<Void, any Error>)
    }

    private let state = Mutex<State>(.waiting([:], next: 0))

    /// Wakes every waiter with `result`; later waiters get it at once.
    func finish(_ result: Result<Void, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard case .waiting(let waiters, _) = state else { return [] }
            state = .done(result)
            return Array(waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Returns once ``finish(_:)`` was called with success; throws its error, or `CancellationError` when cancelled.
    func wait() async throws {
        let slot = Mutex<Int?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate = state.withLock { state -> Result<Void, any Error>? in
                    switch state {
                    case .done(let result):
                        return result
                    case .waiting(var waiters, let next):
                        // Checked under the lock: a cancellation after this point finds the slot and resumes it.
                        if Task.isCancelled { return .failure(CancellationError()) }
                        waiters[next] = continuation
                        state = .waiting(waiters, next: next + 1)
                        slot.withLock { $0 = next }
                        return nil
                    }
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard case .waiting(var waiters, let next) = state, let index = slot.withLock({ $0 }) else { return nil }
                let waiter = waiters.removeValue(forKey: index)
                state = .waiting(waiters, next: next)
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
