import NIOCore
import Synchronization

/// A token bucket per client address, in a table of fixed size: `rate` tokens a second up to `burst`, one per
/// request. Memory is bounded whatever clients do: when the table is full the oldest entry is dropped (its client
/// starts again with a full bucket, so an attacker cycling addresses can only make the limit more lenient, never
/// refuse someone else). IPv6 clients are keyed by their /64, which one host is usually given whole.
///
/// A device retries a postback on anything but 200, so a 429 only delays it: the default is generous.
public final class RateLimiter: Sendable {
    /// How much a client may send.
    public struct Configuration: Sendable, Hashable {
        /// Requests a second one client may make, on average; 0 disables the limit.
        public var perSecond: Double
        /// Requests one client may make at once before the rate applies.
        public var burst: Int
        /// Clients tracked at once; past it the oldest is forgotten.
        public var capacity: Int

        /// 100 a second with bursts of 1,000, for 65,536 clients (some 5 MB): a carrier's NAT puts many devices
        /// behind one address.
        public init(perSecond: Double = 100, burst: Int = 1000, capacity: Int = 65_536) {
            self.perSecond = perSecond
            self.burst = burst
            self.capacity = capacity
        }

        /// Whether requests are limited at all.
        public var isEnabled: Bool { perSecond > 0 }
    }

    /// A request admitted, or refused with the whole seconds until the client has a token again.
    public enum Decision: Sendable, Equatable {
        case admitted
        case refused(retryAfter: Int)
    }

    private struct Slot {
        var key: IPAddress
        var tokens: Double
        var last: UInt64
    }

    private struct Table {
        var index: [IPAddress: Int] = [:]
        var slots: [Slot] = []
        /// The slot the next new client takes once the table is full: the oldest entry, in a ring.
        var next = 0
    }

    /// The limits.
    public let configuration: Configuration
    private let table = Mutex(Table())
    private let now: @Sendable () -> UInt64
    private let refusedCount = Atomic<Int>(0)
    private let onRefused: @Sendable () -> Void

    /// A limiter by `configuration`, reading time in nanoseconds from `now` (injected for tests; by default NIO's
    /// monotonic clock); `onRefused` hears of each refusal (a metrics counter).
    public init(_ configuration: Configuration,
                now: @escaping @Sendable () -> UInt64 = { NIODeadline.now().uptimeNanoseconds },
                onRefused: @escaping @Sendable () -> Void = {}) {
        self.configuration = configuration
        self.now = now
        self.onRefused = onRefused
    }

    /// Requests refused so far.
    public var refused: Int { refusedCount.load(ordering: .relaxed) }

    /// Takes a token for `client`, or says when one will be there.
    public func admit(_ client: IPAddress) -> Decision {
        let key = client.isIPv4 ? client : AddressRange.masked(client, bits: 64)
        let (rate, burst, capacity) = (configuration.perSecond, Double(max(configuration.burst, 1)), max(configuration.capacity, 1))
        let moment = now()
        let decision = table.withLock { table -> Decision in
            var slot: Int
            if let found = table.index[key] {
                slot = found
                let elapsed = Double(moment &- table.slots[slot].last) / 1e9
                table.slots[slot].tokens = min(burst, table.slots[slot].tokens + elapsed * rate)
                table.slots[slot].last = moment
            } else if table.slots.count < capacity {
                slot = table.slots.count
                table.slots.append(Slot(key: key, tokens: burst, last: moment))
                table.index[key] = slot
            } else {
                slot = table.next
                table.next = (table.next + 1) % capacity
                table.index[table.slots[slot].key] = nil
                table.slots[slot] = Slot(key: key, tokens: burst, last: moment)
                table.index[key] = slot
            }
            if table.slots[slot].tokens >= 1 {
                table.slots[slot].tokens -= 1
                return .admitted
            }
            let wait = (1 - table.slots[slot].tokens) / rate
            return .refused(retryAfter: max(1, Int(wait.rounded(.up))))
        }
        if case .refused = decision {
            refusedCount.add(1, ordering: .relaxed)
            onRefused()
        }
        return decision
    }

    /// Clients tracked now: at most ``Configuration/capacity``.
    public var tracked: Int { table.withLock { $0.index.count } }
}
