import Foundation
import Logging
import ServiceLifecycle
import SKANStore

/// Removes expired web ads once an interval (a minute by default), so the table holds what Safari may still ask for,
/// and takes the count of those left that the registration limit is checked against. The lookup checks the expiry
/// itself, so this only bounds the table's size: a late run never serves an expired ad.
struct ExpiredWebAds: Service {
    let exchange: WebAdExchange
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isCancelledOrShuttingDown {
            do {
                let removed = try await exchange.sweep()
                if removed > 0 { logger.debug("removed expired web ads", metadata: ["count": "\(removed)"]) }
            } catch {
                logger.warning("cannot remove expired web ads", metadata: ["code": "\(error.code)"])
            }
            // Ends at once on a graceful shutdown: a plain sleep would hold the signer's stop for up to an interval.
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
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
