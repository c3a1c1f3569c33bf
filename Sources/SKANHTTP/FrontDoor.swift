import Hummingbird
import Logging
import NIOCore

/// The one way into every listener of a process: the same idle, request and write timeouts on every connection
/// (``ConnectionDeadline``), the same bound on replies left unsent, and one ``ConnectionBudget`` across all the
/// listeners. The collector's device and admin ports, the signer's private and public ports and the dashboard each
/// build their application through it, so that no listener is the one without defences.
///
/// ```swift
/// let door = FrontDoor(budget: ConnectionBudget(limit: DescriptorLimit.raise().connectionBudget, logger: logger))
/// let gate = door.gate("dashboard")
/// Application(router: router, server: .http1(configuration: .init(additionalChannelHandlers: door.handlers())),
///             configuration: door.configuration(address: .hostname("127.0.0.1", port: 8090), gate: gate),
///             onServerRunning: { channel in gate.bound(channel) })
/// ```
public struct FrontDoor: Sendable {
    /// How long a client may be slow, each way.
    public struct Timeouts: Sendable, Hashable {
        /// How long a connection may sit between requests, or before its first request's head is complete.
        public var idle: Duration
        /// How long a client may take to send one request, from its head to the end of its body.
        public var request: Duration
        /// How long a connection may leave more than ``unsentLimit`` reply bytes unread before it is closed.
        public var write: Duration
        /// Reply bytes a connection may leave unsent (SwiftNIO's buffer and the socket's together) before nothing
        /// more is read from it; `nil`: SwiftNIO's 64 KiB, over a kernel send buffer the kernel sizes itself (on
        /// Linux up to `net.ipv4.tcp_wmem`'s 4 MB, which a client that never reads makes the server fill first).
        public var unsentLimit: Int?
        /// How long `/readyz` fails on a graceful shutdown before the listeners stop accepting (``ServiceComposition``):
        /// time for a load balancer to see it and stop sending. Zero: they stop at once.
        public var drain: Duration = .zero

        /// 32 KiB: a reply of the collector or the signer is under 1 KiB, and a connection still moves 320 KB/s at
        /// 100 ms of round trip (a dashboard page of some 100 KiB in a third of a second more). The process holds
        /// half of it, which on the router's path costs several times its size in the replies' buffers and the
        /// requests read ahead of them: at 256 KiB, 50 clients that never read took a dashboard from 50 MB to 121 MB
        /// and lived 5-14 s with a 3 s write timeout while they filled it; at 32 KiB, 65-75 MB and 3.2-4.7 s.
        public static let defaultUnsentLimit = 32 << 10

        /// Timeouts; the defaults allow 30 s each way, as nginx allows 60 s for a head and 75 s of keep-alive.
        public init(idle: Duration = .seconds(30), request: Duration = .seconds(30), write: Duration = .seconds(30),
                    unsentLimit: Int? = Timeouts.defaultUnsentLimit) {
            self.idle = idle
            self.request = request
            self.write = write
            self.unsentLimit = unsentLimit
        }
    }

    /// The timeouts every connection gets.
    public let timeouts: Timeouts
    /// The connections the process holds open at most, across its listeners; `nil`: no bound (tests, embedding).
    public let budget: ConnectionBudget?
    /// What gives the memory of connections closed with replies backed up back to the system; `nil`: nothing does.
    public let memory: MemoryReturn?

    /// A door with `timeouts` and, when given, `budget` across every listener built through it; `memory` (the
    /// process's by default) is told when a connection closes with its replies backed up.
    public init(timeouts: Timeouts = Timeouts(), budget: ConnectionBudget? = nil, memory: MemoryReturn? = .process) {
        self.timeouts = timeouts
        self.budget = budget
        self.memory = memory
    }

    /// The handlers every connection starts with, made fresh for each one (they hold one connection's state):
    /// ``ConnectionDeadline`` first, then `after` (a listener's ``EventLoopFastPath``).
    public func handlers(_ after: [any RemovableChannelHandler] = []) -> [any RemovableChannelHandler] {
        [ConnectionDeadline(idleTimeout: timeouts.idle, requestTimeout: timeouts.request, writeTimeout: timeouts.write,
                            unsentLimit: timeouts.unsentLimit, memory: memory)] + after
    }

    /// One listener's place in the budget, named in its log line; `nil` without a budget.
    public func gate(_ name: String) -> ConnectionBudget.Gate? {
        budget?.gate(name)
    }

    /// The application configuration for a listener on `address` that counts its connections through `gate`.
    public func configuration(address: BindAddress, gate: ConnectionBudget.Gate?) -> ApplicationConfiguration {
        ApplicationConfiguration(address: address, serverName: nil, availableConnectionsDelegate: gate)
    }

    /// `onServerRunning` for a listener through `gate`: tells the budget the bound channel (so that a close
    /// elsewhere can wake it), then passes the bound port to `then`.
    public func running(_ gate: ConnectionBudget.Gate?, then: @escaping @Sendable (Int) async -> Void)
        -> @Sendable (any Channel) async -> Void {
        { channel in
            // Up to 16 connections accepted a read, not SwiftNIO's 4: under a burst (300 clients at once) the
            // listener's event loop turns once per read among all its connections' reads, and the last ones waited
            // 1.4 s in the kernel's queue, their clock running. A read may take the budget 15 past its limit, well
            // within the descriptors ``DescriptorLimit/reserve`` keeps.
            try? await channel.setOption(ChannelOptions.maxMessagesPerRead, value: 16)
            gate?.bound(channel)
            await then(channel.localAddress?.port ?? 0)
        }
    }
}
