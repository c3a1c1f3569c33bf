import Foundation
import Synchronization

/// The `Date` header's value (RFC 9110 §5.6.7, `Sun, 06 Nov 1994 08:49:37 GMT`), formatted once a second.
///
/// Hummingbird adds this header to what its router answers; ``EventLoopFastPath`` answers without the router, so
/// it adds the same header itself.
public final class HTTPDate: Sendable {
    private let cache = Mutex<(second: Int, text: String)>((-1, ""))
    private let now: @Sendable () -> Date

    /// A formatter reading the time from `now`.
    public init(now: @escaping @Sendable () -> Date = Date.init) {
        self.now = now
    }

    /// The header value for the current second.
    public var current: String {
        let second = Int(now().timeIntervalSince1970.rounded(.down))
        return cache.withLock { cache in
            if cache.second != second { cache = (second, Self.format(second)) }
            return cache.text
        }
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats seconds since 1970 in UTC.
    public static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
