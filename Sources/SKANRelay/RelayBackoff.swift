import Foundation

/// When a failed attempt is tried again: exponential backoff with jitter, or the receiver's `Retry-After`.
public struct RelayBackoff: Sendable, Hashable {
    /// The first delay.
    public var base: Duration
    /// The longest delay.
    public var cap: Duration

    /// Makes a backoff: 1 s, doubling, at most an hour, by default.
    public init(base: Duration = .seconds(1), cap: Duration = .seconds(3600)) {
        self.base = base
        self.cap = cap
    }

    /// The delay after `attempts` failed attempts (1 after the first): base × 2^(attempts − 1), capped, times a
    /// jitter in [0.5, 1], so that entries that failed together do not all come back together. `jitter` is in
    /// [0, 1].
    public func delay(afterAttempts attempts: Int, jitter: Double) -> Duration {
        let exponent = min(max(attempts - 1, 0), 40)
        let seconds = min(base.seconds * pow(2, Double(exponent)), cap.seconds)
        return .milliseconds(Int64(seconds * (0.5 + 0.5 * min(max(jitter, 0), 1)) * 1000))
    }

    /// A `Retry-After` value: seconds, or an HTTP date; `nil` when it is neither. Never negative.
    public static func retryAfter(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(text) { return .seconds(max(seconds, 0)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .milliseconds(max(Int64(date.timeIntervalSince(now) * 1000), 0))
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
