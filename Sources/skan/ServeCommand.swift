import ArgumentParser
import Foundation
import Logging
import SKANCollector
import SKANCore
import SKANDashboard
import SKANHTTP
import ServiceLifecycle
import SKANStore
import SKANStoreSQLite
import Synchronization

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
            committed to the SQLite database (created with its schema on first start). SIGINT or SIGTERM stops \
            it gracefully: in-flight requests finish and the database closes cleanly.
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

    @OptionGroup var deployment: DeploymentOptions

    @Option(help: "Seconds a graceful shutdown (SIGTERM, SIGINT) may take before slow clients are cut off.")
    var shutdownTimeout: Double = 10

    @Option(help: "Also serve the dashboard (skan dashboard's pages) on this port, a listener of its own (never the postback port).")
    var dashboardPort: Int?

    @Option(help: "The dashboard listener's address (loopback: this machine only; any other needs --dashboard-token-file).")
    var dashboardHost = "127.0.0.1"

    @Option(help: "A file whose first line is the bearer token the dashboard requires (mode 600).")
    var dashboardTokenFile: String?

    func run() async throws {
        let logger = LogSetup.make(label: "skan.serve", level: logLevel.level)
        let verifier = AttributionVerifier(keyRing: try keys.keyRing())
        let timeouts = try listener.timeouts()
        let connections = try listener.connectionLimit(logger: logger)
        let adminAccess = try Self.access(host: adminHost, tokenFile: adminTokenFile,
                                          options: .init(host: "--admin-host", tokenFile: "--admin-token-file"))
        let store = try storage.open(db)
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
        if !paths.isEmpty { configuration.postbackPaths = paths }
        let collector: Collector
        do {
            collector = try Collector(configuration: configuration, store: store, verifier: verifier, logger: logger)
        } catch {
            throw CLIError(error.reason)
        }
        let host = host
        let location = try StoreLocation(db)
        let db = location.display
        var beside: [any Service] = []
        var reader: (any PostbackReader)?
        if let dashboardPort {
            // The reader needs the schema: migrate now (the collector's own migration then finds nothing to do).
            do { try await store.migrate() } catch { throw CLIError(error.reason) }
            let opened = try await location.openReader()
            reader = opened
            let access: OperatorAccess
            do {
                access = try Self.access(host: dashboardHost, tokenFile: dashboardTokenFile,
                                         options: .init(host: "--dashboard-host", tokenFile: "--dashboard-token-file"))
            } catch {
                await opened.close()
                throw error
            }
            do {
                let dashboard = try await Dashboard(reader: opened)
                if !dashboard.hasCharts {
                    logger.warning("Chart.js is not installed at \(Dashboard.debianChartJS) (Debian: apt-get install libjs-chart.js); the dashboard shows tables only")
                }
                let dashboardHost = dashboardHost
                // Through the collector's front door: the same timeouts, and one connection budget for all three
                // listeners, so that idle sockets on the dashboard's port cannot take the device port's descriptors.
                beside.append(DashboardServer(dashboard: dashboard, access: access, port: dashboardPort, logger: logger,
                                              frontDoor: collector.frontDoor)
                    .application { port in
                    FileHandle.standardOutput.write(Data("skan serve: dashboard on http://\(dashboardHost):\(port)/\n".utf8))
                })
            } catch {
                await opened.close()
                throw CLIError(error.reason)
            }
        }
        do {
            // Both lines once both listeners are up, the device port's first, whichever binds first.
            let bound = Mutex<(device: Int?, admin: Int?)>((nil, nil))
            let adminURL = Self.url(host: adminAccess.bindHost)
            let announce: @Sendable () -> Void = {
                let ready = bound.withLock { ports -> (Int, Int)? in
                    guard let device = ports.device, let admin = ports.admin else { return nil }
                    ports = (nil, nil)
                    return (device, admin)
                }
                guard let (device, admin) = ready else { return }
                // A line a script (and the SIGKILL test) can wait for and read the port from, then the admin port's.
                // Written straight to the descriptor so that it is not held in stdio's buffer when piped.
                FileHandle.standardOutput.write(Data(("skan serve: listening on http://\(host):\(device) (database \(db))\n"
                    + "skan serve: admin on http://\(adminURL):\(admin) (/stats, /metrics, /postbacks/{transaction-id})\n").utf8))
            }
            try await collector.run(beside: beside, onServerRunning: { port in
                bound.withLock { $0.device = port }
                announce()
            }, onAdminRunning: { port in
                bound.withLock { $0.admin = port }
                announce()
            })
        } catch {
            await reader?.close()
            throw CLIError(error.reason, exitCode: .failure)
        }
        await reader?.close()
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
    var durability: SQLiteDurability = .full

    @Option(help: "Refused postbacks kept at most; older ones are dropped and counted.")
    var rejectedCap = RejectionCap().maximumRows

    /// The store at `--db` (a file or a postgres:// URL), its schema not yet touched: `serve` migrates it before
    /// its port opens, `ingest` before reading.
    func open(_ db: String) throws(CLIError) -> any PostbackStore {
        try StoreLocation(db).openStore(durability: durability, rejectionCap: RejectionCap(maximumRows: rejectedCap))
    }
}

extension SQLiteDurability: ExpressibleByArgument {}

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
