import ServiceLifecycle
import SKANStore

/// Holds the store open while the collector serves and closes it last.
///
/// First in the service group, so that it is told to shut down last (services stop in reverse order): by then
/// the server has answered its in-flight requests and the writer has committed what they queued. A store that
/// cannot close may not hold what was acknowledged, so that failure ends the group with an error: not a clean
/// stop, whatever came before.
struct StoreService: Service {
    let store: any PostbackStore

    func run() async throws {
        // Cancellation (a shutdown past its deadline) ends the wait too: the store is closed either way.
        try? await gracefulShutdown()
        // After the deadline this task is cancelled, and the engines' async calls (a file's, a server's) throw
        // CancellationError before they start: the close ran halfway and `skan serve` exited 1 though nothing was
        // wrong. So the close runs in a task of its own, which does not inherit the cancellation, awaited here:
        // the deadline cuts slow clients off, never the store's close.
        let store = store
        let closing = Task { () async -> StoreError? in
            do throws(StoreError) {
                try await store.close()
                return nil
            } catch {
                return error
            }
        }
        if let error = await closing.value {
            throw CollectorError(.serviceFailed, "cannot close the store: \(error.reason)")
        }
    }
}
