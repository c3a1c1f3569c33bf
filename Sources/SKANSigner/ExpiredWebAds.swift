import Foundation
import Logging
import ServiceLifecycle
import SKANStore

/// Removes expired web ads once a minute, so the table holds what Safari may still ask for. The lookup checks the
/// expiry itself, so this only bounds the table's size: a late run never serves an expired ad.
struct ExpiredWebAds: Service {
    let store: any WebAdStore
    let now: @Sendable () -> Date
    let logger: Logger

    func run() async throws {
        while !Task.isCancelledOrShuttingDown {
            do {
                let removed = try await store.removeExpired(at: now())
                if removed > 0 { logger.debug("removed expired web ads", metadata: ["count": "\(removed)"]) }
            } catch {
                logger.warning("cannot remove expired web ads", metadata: ["code": "\(error.code)"])
            }
            // Ends at once on a graceful shutdown: a plain sleep would hold the signer's stop for up to a minute.
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(60)) }
            } catch {
                return
            }
        }
    }
}

extension Task where Success == Never, Failure == Never {
    /// Whether the service should stop: cancelled, or the group is shutting down gracefully.
    static var isCancelledOrShuttingDown: Bool { isCancelled || isShuttingDownGracefully }
}
