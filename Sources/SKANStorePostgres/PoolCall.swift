import Synchronization

/// One call of ``PostgresPool/run(_:_:seconds:_:)``: answered once, by its work or by its deadline, whichever comes
/// first; a deadline that answers first cancels the work.
final class PoolCall<Value: Sendable>: Sendable {
    private struct State {
        var outcome: Result<Value, any Error>?
        /// The caller, once it waits.
        var caller: CheckedContinuation<Result<Value, any Error>, Never>?
        /// The host's task running the work, once it waits for the answer to cancel the work on a deadline.
        var work: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Answers the caller, unless it was answered already; the work, if it still runs, is cancelled.
    func answer(_ outcome: Result<Value, any Error>) {
        let (caller, work) = state.withLock { state -> (CheckedContinuation<Result<Value, any Error>, Never>?, CheckedContinuation<Void, Never>?) in
            guard state.outcome == nil else { return (nil, nil) }
            state.outcome = outcome
            defer { (state.caller, state.work) = (nil, nil) }
            return (state.caller, state.work)
        }
        caller?.resume(returning: outcome)
        work?.resume()
    }

    /// Waits for the answer; `start` queues the work.
    func outcome(start: () -> Void) async -> Result<Value, any Error> {
        await withCheckedContinuation { continuation in
            let answered = state.withLock { state in
                if state.outcome == nil { state.caller = continuation }
                return state.outcome
            }
            if let answered { continuation.resume(returning: answered) }
            start()
        }
    }

    /// Runs the work in the host's task and answers with it; cancels it once the deadline answered first, and
    /// returns when it has ended.
    func perform(_ work: @escaping @Sendable () async throws -> Value) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                do { answer(.success(try await work())) } catch { answer(.failure(error)) }
            }
            await withCheckedContinuation { (answered: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.outcome == nil { state.work = answered }
                    return state.outcome != nil
                }
                if now { answered.resume() }
            }
            group.cancelAll()
        }
    }
}
