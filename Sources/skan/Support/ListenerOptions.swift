import ArgumentParser
import Logging
import SKANHTTP

/// The front door's options, the same for every long-running command (`serve`, `signer`, `dashboard`): the
/// timeouts each connection gets and the connections the process holds open at most, across its listeners.
struct ListenerOptions: ParsableArguments {
    @Option(help: "Seconds a connection may stay idle, or take to send a request's head, before it is closed.")
    var idleTimeout: Double = 30

    @Option(help: "Seconds a client may take to send one request, head to end of body.")
    var requestTimeout: Double = 30

    @Option(help: "Seconds a client may leave its replies unread (past --max-unsent-bytes nothing more is read from it) before its connection is closed.")
    var writeTimeout: Double = 30

    @Option(help: "Reply bytes a connection may leave unsent (the process's buffer and the socket's together) before nothing more is read from it.")
    var maxUnsentBytes = FrontDoor.Timeouts.defaultUnsentLimit

    @Option(help: "Connections held open at most, all of this process's listeners together (default: the descriptor limit less \(DescriptorLimit.reserve)); more wait to be accepted, and a line is logged.")
    var maxConnections: Int?

    @Option(help: "Seconds /readyz answers 503 after SIGTERM before the listeners stop accepting, so that a load balancer stops sending first (0: stop at once).")
    var drainDelay: Double = 0

    /// Seconds as a duration, or a one-line error naming the option: NaN, infinity and a year or more would trap
    /// or mean nothing.
    static func duration(_ seconds: Double, option: String) throws(CLIError) -> Duration {
        guard seconds.isFinite, seconds > 0, seconds < 365 * 86_400 else {
            throw CLIError("\(option) must be a positive number of seconds under a year, got \(seconds)")
        }
        return .microseconds(Int64(seconds * 1_000_000))
    }

    /// The timeouts, checked.
    func timeouts() throws(CLIError) -> FrontDoor.Timeouts {
        guard maxUnsentBytes >= 4096 else {
            throw CLIError("--max-unsent-bytes must be at least 4096, got \(maxUnsentBytes)")
        }
        var timeouts = FrontDoor.Timeouts(idle: try Self.duration(idleTimeout, option: "--idle-timeout"),
                                          request: try Self.duration(requestTimeout, option: "--request-timeout"),
                                          write: try Self.duration(writeTimeout, option: "--write-timeout"),
                                          unsentLimit: maxUnsentBytes)
        if drainDelay != 0 { timeouts.drain = try Self.duration(drainDelay, option: "--drain-delay") }
        return timeouts
    }

    /// Raises the soft descriptor limit (see ``DescriptorLimit``), logs it, and returns the connection budget that
    /// fits under it: `--max-connections` or the limit less the reserve, whichever is lower.
    func connectionLimit(logger: Logger) throws(CLIError) -> Int {
        if let maxConnections, maxConnections < 1 {
            throw CLIError("--max-connections must be at least 1, got \(maxConnections)")
        }
        let descriptors = DescriptorLimit.raise()
        let connections = min(maxConnections ?? descriptors.connectionBudget, descriptors.connectionBudget)
        logger.info("descriptor limit", metadata: [
            "soft-before": "\(descriptors.previous)", "soft": "\(descriptors.soft)", "hard": "\(descriptors.hard)",
            "max-connections": "\(connections)",
        ])
        if let maxConnections, maxConnections > connections {
            logger.warning("--max-connections lowered to fit the descriptor limit",
                           metadata: ["asked": "\(maxConnections)", "used": "\(connections)"])
        }
        return connections
    }

    /// The front door for every listener of the process.
    func frontDoor(logger: Logger) throws(CLIError) -> FrontDoor {
        let timeouts = try timeouts()
        return FrontDoor(timeouts: timeouts, budget: ConnectionBudget(limit: try connectionLimit(logger: logger), logger: logger))
    }
}
