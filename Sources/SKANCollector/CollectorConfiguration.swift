import SKANHTTP
import SKANStore

/// How a collector listens and what it accepts.
///
/// Two listeners: the device port (``host``, ``port``) serves what devices and Apple send, the postbacks, and
/// `/healthz` for load balancers; the admin port (``adminAccess``, ``adminPort``) serves the operator routes,
/// `/stats`, `/metrics` and `GET /postbacks/{transaction-id}`, under ``OperatorAccess``'s rule.
public struct CollectorConfiguration: Sendable {
    /// The admin listener's port when none is given and the device port is not 0: fixed, so that a Prometheus
    /// scrape or a firewall rule can name it, and away from 8080 + 1, which `skan signer` takes by default.
    public static let defaultAdminPort = 9080

    /// Where Apple sends advertisers' copies of SKAdNetwork postbacks (spec §7).
    public static let developerCopyPath = "/.well-known/skadnetwork/report-attribution/"
    /// Where Apple sends advertisers' copies of AdAttributionKit postbacks (spec §8). Either path takes either
    /// framework: the body says which it is.
    public static let aakDeveloperCopyPath = "/.well-known/appattribution/report-attribution/"
    /// The path a network registers with Apple; SKAdNetwork prescribes none, so this is our default.
    public static let networkPath = "/postbacks"

    /// The address to bind.
    public var host: String
    /// The port to bind; 0 picks a free one.
    public var port: Int
    /// Where the operator routes listen and who may read them: loopback by default.
    public var adminAccess: OperatorAccess
    /// The admin listener's port; 0 picks a free one.
    public var adminPort: Int
    /// The paths that take `POST`ed postbacks.
    public var postbackPaths: [String]
    /// The largest body taken, in bytes. Postbacks are under 1 KiB; 64 KiB leaves room for relays' extra keys.
    public var bodyLimit: Int
    /// Whether logs may carry bodies of refused postbacks (off: bodies hold signatures and app ids).
    public var logsBodies: Bool
    /// Threads that run the HTTP event loops; `nil` shares SwiftNIO's group of one per core.
    public var eventLoopThreads: Int?
    /// Whether `POST`ed postbacks are answered on the event loop that read them (``PostbackResponder``) rather than
    /// by Hummingbird's router. Both give the same replies and store the same rows; the event loop saves the
    /// router's per-request machinery, which costs about as much as verifying the postback.
    public var answersPostbacksOnEventLoop: Bool
    /// The least time between the starts of back-to-back commits (see ``GroupCommitWriter``): under load, more
    /// postbacks share each transaction and its fsync; an idle collector still commits at once.
    public var commitInterval: Duration
    /// How long a connection may sit between requests, or before its first request's head is complete, before the
    /// server closes it. nginx allows 75 s of keep-alive and 60 s for a head; a postback is one small request, so
    /// 30 s is generous.
    public var idleTimeout: Duration
    /// How long a client may take to send one request, from its head to the end of its body.
    public var requestTimeout: Duration
    /// How long a connection may leave its replies undrained (more than ``unsentLimit`` bytes unsent) before the
    /// server closes it; meanwhile nothing more is read from it.
    public var writeTimeout: Duration
    /// Reply bytes a connection may leave unsent (SwiftNIO's buffer and the socket's together) before it stops being
    /// read (``FrontDoor/Timeouts/defaultUnsentLimit``); `nil`: SwiftNIO's 64 KiB over the kernel's own buffer.
    public var unsentLimit: Int?
    /// Connections open at most, the device and admin listeners (and any built through ``Collector/frontDoor``)
    /// together; past it new ones wait in the kernel's backlog until one closes, and a line is logged. `nil`: no
    /// limit (`skan serve` sets one below the process's descriptor limit, so that accepting never fails with EMFILE).
    public var maximumConnections: Int?
    /// How long a graceful shutdown may take: requests already read finish within it, then slow clients are cut.
    public var shutdownTimeout: Duration

    /// The per-client rate limit of the postback paths (on by default, generous: ``RateLimiter/Configuration``).
    public var rateLimit = RateLimiter.Configuration()
    /// The proxies whose `X-Forwarded-For` names the client the rate limit counts (``ClientAddress``).
    public var clientAddress = ClientAddress()

    /// How long accepted postbacks and their raw bodies are kept (``RetentionService``); everything by default.
    public var retention = Retention()

    /// How long `/readyz` fails on a graceful shutdown before the listeners stop accepting (zero: at once).
    public var drainDelay: Duration = .zero

    /// The timeouts of every connection, as ``FrontDoor`` takes them.
    public var timeouts: FrontDoor.Timeouts {
        var timeouts = FrontDoor.Timeouts(idle: idleTimeout, request: requestTimeout, write: writeTimeout,
                                          unsentLimit: unsentLimit)
        timeouts.drain = drainDelay
        return timeouts
    }

    /// Makes a configuration; the defaults serve the postback paths on loopback port 8080 and the operator routes on
    /// loopback port ``defaultAdminPort``. Without `adminPort`, a device port of 0 (tests, benchmarks) gives an
    /// admin port of 0 too, so that parallel runs never share one.
    public init(host: String = "127.0.0.1", port: Int = 8080,
                adminAccess: OperatorAccess = .loopback, adminPort: Int? = nil,
                postbackPaths: [String] = [Self.developerCopyPath, Self.aakDeveloperCopyPath, Self.networkPath],
                bodyLimit: Int = 64 * 1024, logsBodies: Bool = false, eventLoopThreads: Int? = nil,
                answersPostbacksOnEventLoop: Bool = true, commitInterval: Duration = .milliseconds(2),
                idleTimeout: Duration = .seconds(30), requestTimeout: Duration = .seconds(30),
                writeTimeout: Duration = .seconds(30), unsentLimit: Int? = FrontDoor.Timeouts.defaultUnsentLimit,
                maximumConnections: Int? = nil,
                shutdownTimeout: Duration = .seconds(10)) {
        self.host = host
        self.port = port
        self.adminAccess = adminAccess
        self.adminPort = adminPort ?? (port == 0 ? 0 : Self.defaultAdminPort)
        self.postbackPaths = postbackPaths
        self.bodyLimit = bodyLimit
        self.logsBodies = logsBodies
        self.eventLoopThreads = eventLoopThreads
        self.answersPostbacksOnEventLoop = answersPostbacksOnEventLoop
        self.commitInterval = commitInterval
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.writeTimeout = writeTimeout
        self.unsentLimit = unsentLimit
        self.maximumConnections = maximumConnections
        self.shutdownTimeout = shutdownTimeout
    }

    func validate() throws(CollectorError) {
        if postbackPaths.isEmpty || postbackPaths.contains(where: { !$0.hasPrefix("/") }) {
            throw CollectorError(.invalidConfiguration, "postback paths must start with '/', got \(postbackPaths)")
        }
        if let eventLoopThreads, eventLoopThreads < 1 {
            throw CollectorError(.invalidConfiguration, "event loop threads must be at least 1, got \(eventLoopThreads)")
        }
        if commitInterval < .zero || commitInterval > .seconds(1) {
            throw CollectorError(.invalidConfiguration, "the commit interval must be 0 to 1 s, got \(commitInterval)")
        }
        for (name, timeout) in [("idle", idleTimeout), ("request", requestTimeout), ("write", writeTimeout),
                                ("shutdown", shutdownTimeout)]
        where timeout <= .zero {
            throw CollectorError(.invalidConfiguration, "the \(name) timeout must be positive, got \(timeout)")
        }
        if let maximumConnections, maximumConnections < 1 {
            throw CollectorError(.invalidConfiguration, "the connection limit must be at least 1, got \(maximumConnections)")
        }
        if let unsentLimit, unsentLimit < 2 {
            throw CollectorError(.invalidConfiguration, "the unsent-bytes bound must be at least 2, got \(unsentLimit)")
        }
        for (name, days) in [("--retain-days", retention.postbackDays), ("--retain-body-days", retention.bodyDays)] {
            if let days, days < 1 || days > 36_500 {
                throw CollectorError(.invalidConfiguration, "\(name) must be 1 to 36500 days, got \(days)")
            }
        }
        if rateLimit.perSecond < 0 || !rateLimit.perSecond.isFinite || rateLimit.burst < 1 || rateLimit.capacity < 1 {
            throw CollectorError(.invalidConfiguration, "the rate limit must be 0 (off) or a positive rate with a burst of at least 1, got \(rateLimit.perSecond) a second, bursts of \(rateLimit.burst)")
        }
        if bodyLimit < 1 {
            throw CollectorError(.invalidConfiguration, "the body limit must be at least 1 byte, got \(bodyLimit)")
        }
    }
}
