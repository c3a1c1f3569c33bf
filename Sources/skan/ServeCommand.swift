import ArgumentParser
import Foundation
import Logging
import SKANCollector
import SKANCore
import SKANDashboard
import SKANHTTP
import SKANSigner
import ServiceLifecycle
import SKANRelay
import SKANStore

/// `skan serve`: the collector, receiving postbacks over HTTP.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Receive postbacks over HTTP, verify them, drop duplicates and store them durably.",
        discussion: """
            Serves POST /.well-known/skadnetwork/report-attribution/, \
            /.well-known/appattribution/report-attribution/ and POST /postbacks (or the --path values) and \
            GET /healthz on the device port (--host, --port), and the operator routes GET /metrics, /stats and \
            /postbacks/{transaction-id} (and /healthz) on the admin port (--admin-host, --admin-port; loopback, or \
            a bearer token from --admin-token-file). Answers 200 only once the postback is \
            committed to the SQLite database (created with its schema on first start). --dashboard-port and \
            --signer-port add the dashboard and the signer, each on a private listener of its own, to the same \
            process. Every port is tried before anything is created, and the listening lines are printed once all \
            are bound. SIGINT or SIGTERM stops it gracefully: in-flight requests finish and the database closes \
            cleanly.
            """
    )

    @Option(help: "The SQLite database file, or a postgres:// URL (user, password, host, port, database).")
    var db = "./skan.sqlite"

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one (printed at start).")
    var port = 8080

    @Option(help: "The admin listener's address, for /stats, /metrics and GET /postbacks/{id} (loopback: this machine only; any other needs --admin-token-file).")
    var adminHost = "127.0.0.1"

    @Option(help: "The admin listener's port (default \(CollectorConfiguration.defaultAdminPort), or a free one when --port is 0; printed at start).")
    var adminPort: Int?

    @Option(help: "A file whose first line is the bearer token the admin listener requires (mode 600; required off loopback).")
    var adminTokenFile: String?

    @Option(name: .customLong("path"), help: "A path that takes POSTed postbacks, replacing the two defaults. Repeatable.")
    var paths: [String] = []

    @OptionGroup var keys: KeyOptions

    @OptionGroup var storage: StorageOptions

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: LogLevelArgument = .info

    @Flag(help: "Log the bodies of refused postbacks (they carry signatures; off by default).")
    var logBodies = false

    @Option(help: "HTTP event loop threads (default: one per core).")
    var eventLoops: Int?

    @Flag(help: "Answer postbacks through Hummingbird's router instead of on the event loop that read them (same replies and rows; slower; for comparison).")
    var postbacksViaRouter = false

    @Option(help: "Least milliseconds between the starts of back-to-back commits: under load more postbacks share each fsync (0: commit as soon as one ends).")
    var commitIntervalMs: Double = 2

    @OptionGroup var listener: ListenerOptions

    @OptionGroup var retention: RetentionOptions

    @OptionGroup var limits: RateLimitOptions

    @OptionGroup var deployment: DeploymentOptions

    @Option(help: "Seconds a graceful shutdown (SIGTERM, SIGINT) may take before slow clients are cut off.")
    var shutdownTimeout: Double = 10

    @Option(help: "Also serve the dashboard (skan dashboard's pages) on this port, a listener of its own (never the postback port).")
    var dashboardPort: Int?

    @Option(help: "The dashboard listener's address (loopback: this machine only; any other needs --dashboard-token-file).")
    var dashboardHost = "127.0.0.1"

    @Option(help: "A file whose first line is the bearer token the dashboard requires (mode 600).")
    var dashboardTokenFile: String?

    @Option(help: "Also serve the signer (skan signer's POST /v1/impressions, GET /v1/keys, /metrics) on this port, a private listener of its own; needs --signer-key.")
    var signerPort: Int?

    @Option(help: ArgumentHelp("A private key file for the signer ([AD-NETWORK-ID=]PEM), as skan signer --key. Repeatable.",
                               valueName: "[id=]pem"))
    var signerKey: [String] = []

    @Option(help: "The signer listener's address (loopback: this machine only; any other needs --signer-token-file).")
    var signerHost = "127.0.0.1"

    @Option(help: "A file whose first line is the bearer token the signer requires (mode 600).")
    var signerTokenFile: String?

    @Option(help: "A JSON file of destinations to relay accepted postbacks to, at least once (docs/guides/relay.md).")
    var relay: String?

    func run() async throws {
        let logger = LogSetup.make(label: "skan.serve", level: logLevel.level)
        let verifier = AttributionVerifier(keyRing: try keys.keyRing())
        let timeouts = try listener.timeouts()
        let connections = try listener.connectionLimit(logger: logger)
        let adminAccess = try Self.access(host: adminHost, tokenFile: adminTokenFile,
                                          options: .init(host: "--admin-host", tokenFile: "--admin-token-file"))
        let dashboardAccess = try dashboardPort.map { _ throws(CLIError) in
            try Self.access(host: dashboardHost, tokenFile: dashboardTokenFile,
                            options: .init(host: "--dashboard-host", tokenFile: "--dashboard-token-file"))
        }
        let signerKeys: SignerKeys? = try signerPort.map { _ throws(CLIError) in
            guard !signerKey.isEmpty else { throw CLIError("--signer-port needs at least one --signer-key") }
            return try SignerKeys.load(signerKey, option: "--signer-key")
        }
        if signerPort == nil, !signerKey.isEmpty { throw CLIError("--signer-key is used only with --signer-port") }
        let signerAccess = try signerPort.map { _ throws(CLIError) in
            try Self.access(host: signerHost, tokenFile: signerTokenFile,
                            options: .init(host: "--signer-host", tokenFile: "--signer-token-file"))
        }
        var configuration = CollectorConfiguration(host: host, port: port, adminAccess: adminAccess,
                                                   adminPort: adminPort, logsBodies: logBodies,
                                                   eventLoopThreads: eventLoops,
                                                   answersPostbacksOnEventLoop: !postbacksViaRouter,
                                                   commitInterval: .microseconds(Int64(commitIntervalMs * 1000)),
                                                   idleTimeout: timeouts.idle, requestTimeout: timeouts.request,
                                                   writeTimeout: timeouts.write, unsentLimit: timeouts.unsentLimit,
                                                   maximumConnections: connections,
                                                   shutdownTimeout: try ListenerOptions.duration(
                                                       shutdownTimeout, option: "--shutdown-timeout"))
        configuration.drainDelay = timeouts.drain
        configuration.retention = retention.retention
        configuration.rateLimit = try limits.configuration()
        configuration.clientAddress = try limits.clientAddress()
        if !paths.isEmpty { configuration.postbackPaths = paths }
        let relayConfiguration = try RelayCommand.configuration(relay)
        // Every listener's port is tried before anything is created: a busy port leaves no database file behind.
        try await Self.probe(configuration, dashboard: dashboardPort.map { ($0, dashboardHost) },
                             signer: signerPort.map { ($0, signerHost) })
        let location = try StoreLocation(db)
        let store = try storage.open(db)
        let relaying = try relayConfiguration.map { configuration throws(CLIError) in
            (configuration: configuration, outbox: try RelayCommand.outbox(of: store))
        }
        let collector: Collector
        do {
            collector = try Collector(configuration: configuration, store: store, verifier: verifier, logger: logger,
                                      relay: relaying.map { RelayRouter(configuration: $0.configuration) })
        } catch {
            throw CLIError(error.reason)
        }
        var composition = collector.composition()
        var lines: [(name: String, line: @Sendable (Int) -> String)] = [
            ("device", { [host, db = location.display] in "listening on http://\(Self.url(host: host)):\($0) (database \(db))" }),
            ("admin", { [adminURL = Self.url(host: adminAccess.bindHost)] in
                "admin on http://\(adminURL):\($0) (/stats, /metrics, /postbacks/{transaction-id})" }),
        ]
        let relayMetrics = relaying.map {
            RelayMetrics(registry: collector.metrics.registry, destinations: $0.configuration.destinations.map(\.name))
        }
        if let relaying {
            // Started after the migrations (a worker of the group): it claims from the outbox at once.
            composition.add(worker: RelayService(configuration: relaying.configuration, outbox: relaying.outbox,
                                                 metrics: relayMetrics, logger: logger))
        }
        if let dashboardPort, let dashboardAccess {
            // The reader needs the schema: migrate now (the collector's own migration then finds nothing to do),
            // through a store of its own hosted for that alone: the collector's store is its service group's to host.
            let migrating = try storage.open(db)
            do {
                try await StoreHost.running([migrating]) {
                    do {
                        try await migrating.migrate()
                        try await migrating.close()
                    } catch {
                        try? await migrating.close()
                        throw error
                    }
                }
            } catch let error as StoreError {
                throw CLIError(error.reason)
            }
            let opened = try await location.openReader()
            let campaignMaps = try location.openCampaignMapStore()
            do {
                var dashboard = try await Dashboard(reader: opened, campaignMaps: campaignMaps)
                if let relaying, let relayMetrics {
                    // The relay page shows what this collector sent beside the outbox the fleet shares.
                    dashboard.relayDelivery = RelayDelivery(destinations: relaying.configuration.destinations.map(\.name)) {
                        relayMetrics.counts().mapValues { RelayDelivery.Counts(sent: $0.sent, retried: $0.retried, dead: $0.dead) }
                    }
                }
                if !dashboard.hasCharts {
                    logger.warning("Chart.js is not installed at \(Dashboard.debianChartJS) (Debian: apt-get install libjs-chart.js); the dashboard shows tables only")
                }
                // Through the collector's front door: the same timeouts, and one connection budget for every
                // listener, so that idle sockets on the dashboard's port cannot take the device port's descriptors.
                var server = DashboardServer(dashboard: dashboard, access: dashboardAccess, port: dashboardPort,
                                             logger: logger, frontDoor: collector.frontDoor)
                server.portOption = "--dashboard-port"
                // Closed by the group before the store, so that the store's close is the last and leaves no WAL.
                server.ownedReader = opened
                server.ownedCampaignMaps = campaignMaps
                composition.add(server)
                lines.append(("dashboard", { [url = Self.url(host: dashboardAccess.bindHost)] in "dashboard on http://\(url):\($0)/" }))
            } catch {
                await opened.close()
                await campaignMaps.close()
                throw CLIError(error.reason)
            }
        }
        if let signerPort, let signerKeys, let signerAccess {
            var signer = Signer(keys: signerKeys, access: signerAccess, port: signerPort, logger: logger,
                                frontDoor: collector.frontDoor)
            signer.portOption = "--signer-port"
            composition.add(signer)
            lines.append(("signer", { [url = Self.url(host: signerAccess.bindHost)] in
                "signer on http://\(url):\($0) (POST /v1/impressions)" }))
        }
        let announced = lines
        do {
            // Once every listener is bound, and only then: a line a script (and the tests) can wait for and read
            // the ports from. Written straight to the descriptor so that it is not held in stdio's buffer when piped.
            try await composition.run { bound in
                let text = announced.compactMap { name, line in bound[name].map { "skan serve: " + line($0) + "\n" } }.joined()
                FileHandle.standardOutput.write(Data(text.utf8))
            }
            logger.info("stopped; the store is closed")
        } catch {
            throw CLIError(Self.describe(error), exitCode: .failure)
        }
    }

    /// Tries every listener's address before anything is created.
    static func probe(_ configuration: CollectorConfiguration, dashboard: (port: Int, host: String)?,
                      signer: (port: Int, host: String)?) async throws(CLIError) {
        var listeners: [Listener] = [
            .device("device", option: "--port", host: configuration.host, port: configuration.port) { _ in },
            .device("admin", option: "--admin-port", host: configuration.adminAccess.bindHost,
                    port: configuration.adminPort) { _ in },
        ]
        if let dashboard {
            listeners.append(.device("dashboard", option: "--dashboard-port", host: dashboard.host, port: dashboard.port) { _ in })
        }
        if let signer {
            listeners.append(.device("signer", option: "--signer-port", host: signer.host, port: signer.port) { _ in })
        }
        do {
            try await ListenerProbe.check(listeners)
        } catch {
            throw CLIError(error.reason, exitCode: .failure)
        }
    }

    /// A failure of the running services in one line: a listener's or the store's own sentence.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as ListenerError: error.reason
        case let error as CollectorError: error.reason
        case let error as StoreError: error.reason
        default: "the collector stopped: \(error)"
        }
    }
}

extension ServeCommand {
    /// The private listener's rule for `host`, with the token in `tokenFile` if given; refuses a listener beyond
    /// loopback without one, naming `options` (shared with `skan signer` and `skan dashboard`).
    static func access(host: String, tokenFile: String?, options: OperatorAccess.Options) throws(CLIError) -> OperatorAccess {
        do throws(OperatorAccessError) {
            let token = try tokenFile.map { path throws(OperatorAccessError) in
                try OperatorAccess.token(fromFile: path, option: options.tokenFile)
            }
            return try OperatorAccess(host: host, token: token, options: options)
        } catch {
            throw CLIError(error.reason)
        }
    }

    /// A host for a URL: an IPv6 address in brackets.
    static func url(host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}

/// How the store is opened, shared by `serve` and `ingest`.
struct StorageOptions: ParsableArguments {
    @Option(help: "SQLite: full, every commit survives power loss (fsync per batch); normal, survives a process crash only. PostgreSQL commits as its own synchronous_commit says; this option does not apply.")
    var durability: Durability = .full

    @Option(help: "Refused postbacks kept at most; older ones are dropped and counted.")
    var rejectedCap = RejectionCap().maximumRows

    /// The store at `--db` (a file or a postgres:// URL), its schema not yet touched: `serve` migrates it before
    /// its port opens, `ingest` before reading.
    func open(_ db: String) throws(CLIError) -> any PostbackStore {
        try StoreLocation(db).openStore(StoreOptions(durability: durability, rejectionCap: RejectionCap(maximumRows: rejectedCap)))
    }
}

extension Durability: ExpressibleByArgument {}

/// A swift-log level as a command-line value.
enum LogLevelArgument: String, ExpressibleByArgument, CaseIterable {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}

/// Process-wide logging set-up for the long-running commands.
enum LogSetup {
    static func make(label: String, level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { LogFormat.selected.handler(label: $0) }
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}
