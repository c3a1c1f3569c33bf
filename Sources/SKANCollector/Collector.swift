import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnixSignals
import SKANCore
import SKANHTTP
import SKANStore

/// The postback collector: an HTTP service that verifies postbacks, drops duplicates and stores them durably.
///
/// ```swift
/// let store = try SQLitePostbackStore(path: "skan.sqlite")  // the collector migrates it before serving
/// try await Collector(configuration: .init(), store: store, logger: logger).run()
/// ```
public struct Collector: Sendable {
    /// How it listens and what it accepts.
    public let configuration: CollectorConfiguration
    /// Where postbacks go.
    public let store: any PostbackStore
    /// The one writer in front of the store.
    public let writer: GroupCommitWriter
    /// Verify, deduplicate, store.
    public let pipeline: PostbackPipeline
    /// What `GET /metrics` reports (on the admin listener).
    public let metrics: CollectorMetrics
    /// The timeouts and the connection budget of every listener: the device and admin ports, and whatever the host
    /// serves beside them (`skan serve --dashboard-port` builds the dashboard's listener through it).
    public let frontDoor: FrontDoor
    /// Where store failures are logged, rate-limited.
    let failureLog: StoreFailureLog
    let logger: Logger

    /// Makes a collector over `store`, trusting the keys of `verifier`; `relay` decides what each accepted
    /// postback queues in the store's outbox (`nil`: nothing, at no cost).
    public init(configuration: CollectorConfiguration, store: any PostbackStore,
                verifier: AttributionVerifier = AttributionVerifier(), logger: Logger,
                relay: (any OutboxRouting)? = nil,
                now: @escaping @Sendable () -> Date = Date.init) throws(CollectorError) {
        try configuration.validate()
        self.configuration = configuration
        self.store = store
        self.logger = logger
        let failureLog = StoreFailureLog(logger: logger)
        self.failureLog = failureLog
        writer = GroupCommitWriter(store: store, commitInterval: configuration.commitInterval,
                                   onFailure: failureLog.record)
        pipeline = PostbackPipeline(verifier: verifier, writer: writer, logger: logger,
                                    logsBodies: configuration.logsBodies, relay: relay, now: now)
        metrics = CollectorMetrics()
        frontDoor = FrontDoor(timeouts: configuration.timeouts,
                              budget: configuration.maximumConnections.map { ConnectionBudget(limit: $0, logger: logger) })
    }

    /// Adds the collector's device-facing routes (and its `Host` check) to `router`: the postback paths and
    /// `/healthz`, so that they can be served beside another device-facing service's routes on one listener.
    /// ``application(onServerRunning:)`` serves them on their own.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        CollectorRouter.add(to: router, pipeline: pipeline, store: store, metrics: metrics, failureLog: failureLog,
                            configuration: configuration)
    }

    /// Adds the operator routes (`/healthz`, `/metrics`, `/stats`, `GET /postbacks/{transaction-id}`) to the router
    /// of a private listener, which must apply ``OperatorAccess``'s rule itself (``OperatorAccessMiddleware``, added
    /// first). ``adminApplication(onServerRunning:)`` serves them on their own under the configuration's rule.
    public func addAdminRoutes<Context: RequestContext>(to router: Router<Context>) {
        CollectorRouter.addAdmin(to: router, store: store, metrics: metrics, failureLog: failureLog)
    }

    /// The device-facing routes, for router-level tests and for embedding in another application.
    public var router: Router<BasicRequestContext> {
        CollectorRouter.make(pipeline: pipeline, store: store, metrics: metrics, failureLog: failureLog,
                             configuration: configuration)
    }

    /// The operator routes behind the configuration's ``CollectorConfiguration/adminAccess``, for router-level tests.
    public var adminRouter: Router<BasicRequestContext> {
        CollectorRouter.makeAdmin(store: store, metrics: metrics, failureLog: failureLog,
                                  access: configuration.adminAccess)
    }

    /// The admin listener's HTTP application, not yet running: the operator routes on
    /// ``CollectorConfiguration/adminAccess``'s address and ``CollectorConfiguration/adminPort``. `onServerRunning`
    /// receives the bound port.
    public func adminApplication(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        let (door, gate) = (frontDoor, frontDoor.gate("admin"))
        return Application(
            router: adminRouter,
            server: .http1(configuration: .init(additionalChannelHandlers: door.handlers())),
            configuration: door.configuration(
                address: .hostname(configuration.adminAccess.bindHost, port: configuration.adminPort), gate: gate),
            onServerRunning: door.running(gate, then: onServerRunning),
            logger: logger)
    }

    /// The device-facing HTTP application, not yet running. `onServerRunning` receives the bound port (useful with
    /// port 0).
    /// The writer must run beside it (``run(onServerRunning:)`` does both).
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        let configuration = configuration
        let (pipeline, metrics) = (pipeline, metrics)
        let date = HTTPDate()
        let (door, gate) = (frontDoor, frontDoor.gate("device"))
        // Built per connection: each handler holds one connection's state.
        let handlers: @Sendable () -> [any RemovableChannelHandler] = {
            guard configuration.answersPostbacksOnEventLoop else { return door.handlers() }
            let postbacks = PostbackResponder(pipeline: pipeline, metrics: metrics, paths: configuration.postbackPaths,
                                              limit: configuration.bodyLimit)
            return door.handlers([EventLoopFastPath(postbacks, date: date)])
        }
        var application = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: handlers())),
            configuration: door.configuration(address: .hostname(configuration.host, port: configuration.port), gate: gate),
            onServerRunning: door.running(gate, then: onServerRunning),
            eventLoopGroupProvider: configuration.eventLoopThreads.map {
                .shared(MultiThreadedEventLoopGroup(numberOfThreads: $0))
            } ?? .singleton,
            logger: logger)
        // The schema is brought up to date before the port opens, so no postback meets an old schema; with
        // several collectors on one database the engine makes sure the migrations run once.
        let store = store
        application.beforeServerStarts { try await store.migrate() }
        return application
    }

    /// The store, the writer and the HTTP server as one service group: the one place they are composed.
    ///
    /// Services stop in reverse order: the server first (its requests already read still reach the writer), then
    /// the writer (everything queued commits), then the store (closed last). A graceful shutdown that outlasts the
    /// configuration's shutdown timeout is cut short: the group cancels the services, closing the connections of
    /// clients still sending.
    /// `beside` are more services of the application's (a dashboard on its own listener): they start after the
    /// collector's servers and stop before them. `onAdminRunning` receives the admin listener's port.
    func serviceGroup(gracefulShutdownSignals: [UnixSignal] = [], beside: [any Service] = [],
                      onServerRunning: @escaping @Sendable (Int) async -> Void,
                      onAdminRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> ServiceGroup {
        var group = ServiceGroupConfiguration(
            services: [StoreService(store: store), WriterService(writer: writer),
                       application(onServerRunning: onServerRunning),
                       adminApplication(onServerRunning: onAdminRunning)] + beside,
            gracefulShutdownSignals: gracefulShutdownSignals,
            logger: logger)
        group.maximumGracefulShutdownDuration = configuration.shutdownTimeout
        return ServiceGroup(configuration: group)
    }

    /// Serves until SIGINT or SIGTERM, then lets in-flight requests finish, commits what they queued, and closes
    /// the store. `beside` runs in the same group (see ``serviceGroup(gracefulShutdownSignals:beside:onServerRunning:onAdminRunning:)``);
    /// `onServerRunning` receives the device port, `onAdminRunning` the admin port.
    public func run(beside: [any Service] = [],
                    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                    onAdminRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws(CollectorError) {
        let group = serviceGroup(gracefulShutdownSignals: [.sigterm, .sigint], beside: beside,
                                 onServerRunning: onServerRunning, onAdminRunning: onAdminRunning)
        do {
            try await group.run()
        } catch let error as CollectorError {
            throw error
        } catch {
            throw CollectorError(.serviceFailed, "the collector stopped: \(error)")
        }
        logger.info("stopped; the store is closed")
    }
}
