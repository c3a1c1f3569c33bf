import SKANHTTP
import SKANStore

/// The collector's store as a resource of the service group: its own work (a PostgreSQL pool) run while the collector
/// serves, the store closed last.
///
/// Added first among the collector's services, so that it is told to shut down last (services stop in reverse
/// order): by then the server has answered its in-flight requests and the writer has committed what they queued.
enum StoreService {
    static func add(_ store: any PostbackStore, to composition: inout ServiceComposition) {
        composition.add(resource: "postback store", running: { await store.run() }) {
            do throws(StoreError) {
                try await store.close()
            } catch {
                throw CollectorError(.serviceFailed, "cannot close the store: \(error.reason)")
            }
        }
    }
}
