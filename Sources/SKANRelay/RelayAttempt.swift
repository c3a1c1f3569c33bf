import Foundation
import SKANStore

/// What one attempt to send an entry came to, before it is judged.
public enum RelayAttempt: Sendable, Hashable {
    /// The receiver answered with this status (and `Retry-After`, when it sent one).
    case answered(status: Int, retryAfter: String?)
    /// No answer: refused, reset, timed out, or not HTTP.
    case failed(String)
    /// Delivery stopped before the attempt ended: not counted.
    case stopped
}

extension RelayAttempt {
    /// The settlement of `entry` after this attempt: 2xx settles; 408, 429 (after its `Retry-After`), 5xx and
    /// failures retry with backoff; other statuses retry until ``RelayDestination/deadAfter`` attempts, then the
    /// entry is a dead letter; so is one whose next try would come later than ``RelayDestination/maximumAge``
    /// after it was queued.
    public func settlement(of entry: OutboxEntry, destination: RelayDestination, backoff: RelayBackoff,
                           now: Date, jitter: Double) -> OutboxSettlement {
        let attempts = entry.attempts + 1
        let error: String
        var delay = backoff.delay(afterAttempts: attempts, jitter: jitter)
        switch self {
        case .stopped:
            return .release(id: entry.id, at: now)
        case .answered(let status, _) where (200 ..< 300).contains(status):
            return .sent(id: entry.id)
        case .answered(let status, let retryAfter) where status == 408 || status == 429 || (500 ..< 600).contains(status):
            error = "HTTP \(status)"
            if let retryAfter, let wait = RelayBackoff.retryAfter(retryAfter, now: now) { delay = wait }
        case .answered(let status, _):
            error = "HTTP \(status)"
            if attempts >= destination.deadAfter { return .dead(id: entry.id, error: error) }
        case .failed(let reason):
            error = reason
        }
        let next = now.addingTimeInterval(delay.seconds)
        if next.timeIntervalSince(entry.createdAt) > destination.maximumAge.seconds {
            return .dead(id: entry.id, error: "gave up after \(attempts) attempts: \(error)")
        }
        return .retry(id: entry.id, at: next, error: error)
    }
}
