import SKANHTTP
import SKANStore

/// The collector's store as a resource of the service group: held open while the collector serves, closed last.
///
/// Added first among the collector's services, so that it is told to shut down last (services stop in reverse
/// order): by then the server has answered its in-flight requests and the writer has committed what they queued.
enum StoreService {
    static func make(_ store: any PostbackStore) -> ClosingService {
        ClosingService("postback store") {
            do throws(StoreError) {
                try await store.close()
            } catch {
                throw CollectorError(.serviceFailed, "cannot close the store: \(error.reason)")
            }
        }
    }
}
