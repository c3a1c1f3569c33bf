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
        do {
            try await store.close()
        } catch {
            throw CollectorError(.serviceFailed, "cannot close the store: \(error.reason)")
        }
    }
}
