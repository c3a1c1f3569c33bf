import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// The connections one process holds open, across all its listeners (a collector's device and admin ports, a
/// dashboard beside them, a signer's two ports): one budget, kept below the descriptor limit
/// (``DescriptorLimit/connectionBudget``), so that accepting never fails with EMFILE, whichever listener is busy.
///
/// Past the budget a listener stops accepting: new connections wait in the kernel's backlog, costing no CPU, until
/// a connection anywhere in the process closes. Each listener is guaranteed a share (``guaranteedShare``) that the
/// others cannot take, so that a flood of idle sockets on one port (the dashboard's, say) never leaves the device
/// port without a connection for a postback or a load balancer's `/healthz`. Reaching the budget is logged, at most
/// once per ``logInterval``, with how many times accepting paused since the last line.
public final class ConnectionBudget: Sendable {
    /// Connections held open at most, all listeners together.
    public let limit: Int
    /// The least time between two "budget reached" lines.
    public let logInterval: Duration
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var listeners: [Listener] = []
        var open = 0
        /// Times a listener paused accepting since the last log line, and when that line was.
        var pauses = 0
        var loggedAt: ContinuousClock.Instant?
    }

    private struct Listener {
        let name: String
        var open = 0
        /// Paused for want of budget: woken when any connection closes.
        var waiting = false
        /// The listening channel, once it is bound.
        var channel: (any Channel)?
    }

    /// A budget of `limit` connections; `logger` says when it is reached, at most once per `logInterval`.
    public init(limit: Int, logger: Logger, logInterval: Duration = .seconds(10)) {
        self.limit = max(1, limit)
        self.logger = logger
        self.logInterval = logInterval
        state = Mutex(State())
    }

    /// Connections open now, all listeners together.
    public var open: Int { state.withLock { $0.open } }

    /// What each listener can always have, however busy the others: half the budget shared out evenly.
    public var guaranteedShare: Int { state.withLock { Self.share(limit, listeners: $0.listeners.count) } }

    private static func share(_ limit: Int, listeners: Int) -> Int { max(1, limit / (2 * max(1, listeners))) }

    /// A gate for one more listener, named in the log (`device`, `admin`, `dashboard`, ...).
    public func gate(_ name: String) -> Gate {
        let index = state.withLock { state in
            state.listeners.append(Listener(name: name))
            return state.listeners.count - 1
        }
        return Gate(budget: self, index: index)
    }

    /// Hummingbird's hook on one listener: counts its connections into the budget and pauses its accepting.
    public struct Gate: AvailableConnectionsDelegate {
        let budget: ConnectionBudget
        let index: Int

        public func connectionOpened() { budget.opened(index) }
        public func connectionClosed() { budget.closed(index) }
        public func isAcceptingNewConnections() -> Bool { budget.admits(index) }

        /// Tells the budget the listener's channel, so that a close on another listener can wake it.
        public func bound(_ channel: any Channel) { budget.bind(index, channel) }
    }

    func opened(_ index: Int) {
        state.withLock { state in
            state.open += 1
            state.listeners[index].open += 1
        }
    }

    func closed(_ index: Int) {
        let wake: [any Channel] = state.withLock { state in
            state.open -= 1
            state.listeners[index].open -= 1
            guard state.listeners.contains(where: \.waiting) else { return [] }
            var channels: [any Channel] = []
            for i in state.listeners.indices where state.listeners[i].waiting {
                state.listeners[i].waiting = false
                if let channel = state.listeners[i].channel { channels.append(channel) }
            }
            return channels
        }
        // A read that reaches Hummingbird's handler asks this budget again; one that finds room accepts. Queued on
        // the listener's loop, never run here: this is called from inside that handler's own bookkeeping, which a
        // read run at once would re-enter (a Swift exclusivity violation, fatal).
        for channel in wake { channel.eventLoop.execute { channel.read() } }
    }

    func bind(_ index: Int, _ channel: any Channel) {
        let wake = state.withLock { state -> Bool in
            state.listeners[index].channel = channel
            return state.listeners[index].waiting
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLock { $0.listeners[index].channel = nil }
        }
        if wake { channel.eventLoop.execute { channel.read() } }
    }

    func admits(_ index: Int) -> Bool {
        let (admitted, line) = state.withLock { state -> (Bool, String?) in
            let share = Self.share(limit, listeners: state.listeners.count)
            // The others' guarantees that they do not use yet are held back from this listener.
            var heldBack = 0
            for i in state.listeners.indices where i != index { heldBack += max(0, share - state.listeners[i].open) }
            if state.listeners[index].open < share || state.open + heldBack < limit { return (true, nil) }
            state.listeners[index].waiting = true
            state.pauses += 1
            let now = ContinuousClock.now
            if let loggedAt = state.loggedAt, now - loggedAt < logInterval { return (false, nil) }
            state.loggedAt = now
            let pauses = state.pauses
            state.pauses = 0
            let counts = state.listeners.map { "\($0.name) \($0.open)" }.joined(separator: ", ")
            return (false, "\(state.listeners[index].name) paused accepting \(pauses) time(s); open: \(counts)")
        }
        if let line {
            logger.warning("connection budget reached: new connections wait in the backlog until one closes",
                           metadata: ["limit": "\(limit)", "detail": "\(line)"])
        }
        return admitted
    }
}
