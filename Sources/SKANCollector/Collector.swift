import CoreMetrics
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle
import SKANCore
import SKANHTTP
import SKANStore

/// The postback collector: an HTTP service that verifies postbacks, drops duplicates and stores them durably.
///
/// ```swift
/// let store = try engine.openStore("skan.sqlite", options: StoreOptions())  // migrated before serving
/// try await Collector(configuration: .init(), store: store, logger: logger).run()
/// ```
///
/// A process that hosts more (the signer, the dashboard) adds the collector to one ``ServiceComposition`` instead:
///
/// ```swift
/// var composition = collector.composition()
/// composition.add(signer)
/// try await composition.run { bound in print(bound["device"]!, bound["signer"]!) }
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
    /// The device listener's event loops when the configuration asks for a number of them (made once, here).
    let eventLoopGroup: (any EventLoopGroup)?
    let logger: Logger
    /// The postback paths' per-client limit, shared by the device listener's connections.
    let rateLimiter: RateLimiter

    /// Makes a collector over `store`, trusting the keys of `verifier`; `relay` decides what each accepted
    /// postback queues in the store's outbox (`nil`: nothing, at no cost).
    public init(configuration: CollectorConfiguration, store: any PostbackStore,
                verifier: AttributionVerifier = AttributionVerifier(), logger: Logger,
                relay: (any OutboxRouting)? = nil,
                now: @escaping @Sendable () -> Date = Date.init) throws(CollectorError) {
        try configuration.validate()
        if !configuration.retention.keepsEverything, !(store is any ExpiringStore) {
            throw CollectorError(.invalidConfiguration, "this store cannot delete expired postbacks; retention needs SQLite, PostgreSQL or the memory engine")
        }
        self.configuration = configuration
        self.store = store
        self.logger = logger
        let failureLog = StoreFailureLog(logger: logger)
        self.failureLog = failureLog
        writer = GroupCommitWriter(store: store, commitInterval: configuration.commitInterval,
                                   onFailure: failureLog.record)
        pipeline = PostbackPipeline(verifier: verifier, writer: writer, logger: logger,
                                    logsBodies: configuration.logsBodies, relay: relay,
                                    recordsClientAddresses: !configuration.clientAddress.trustedProxies.isEmpty, now: now)
        let metrics = CollectorMetrics()
        self.metrics = metrics
        let limited = CoreMetrics.Counter(label: "skan_requests_rate_limited_total",
                                          factory: PrometheusMetricsFactory(registry: metrics.registry))
        rateLimiter = RateLimiter(configuration.rateLimit, onRefused: { limited.increment() })
        eventLoopGroup = configuration.eventLoopThreads.map { MultiThreadedEventLoopGroup(numberOfThreads: $0) }
        frontDoor = FrontDoor(timeouts: configuration.timeouts,
                              budget: configuration.maximumConnections.map { ConnectionBudget(limit: $0, logger: logger) })
    }

    /// Adds the collector's device-facing routes (and its `Host` check) to `router`: the postback paths and
    /// `/healthz`, so that they can be served beside another device-facing service's routes on one listener.
    /// ``application(onServerRunning:)`` serves them on their own. The context carries the peer's address, from
    /// which each postback's client address is resolved (`PeerRequestContext` does).
    public func addRoutes<Context: RemoteAddressRequestContext>(to router: Router<Context>) {
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
    public var router: Router<PeerRequestContext> {
        CollectorRouter.make(pipeline: pipeline, store: store, metrics: metrics, failureLog: failureLog,
                             configuration: configuration)
    }

    /// The operator routes behind the configuration's ``CollectorConfiguration/adminAccess``, for router-level tests.
    public var adminRouter: Router<PeerRequestContext> {
        CollectorRouter.makeAdmin(store: store, metrics: metrics, failureLog: failureLog,
                                  access: configuration.adminAccess)
    }

    /// The device-facing listener (`--port`): postbacks and `/healthz`, with the postback fast path unless the
    /// configuration turns it off, on event loops of its own when the configuration asks for a number of them.
    public var deviceListener: Listener {
        let configuration = configuration
        let (pipeline, metrics) = (pipeline, metrics)
        let date = HTTPDate()
        let collector = self
        // Made per connection: each handler holds one connection's state.
        let handlers: @Sendable () -> [any RemovableChannelHandler] = {
            guard configuration.answersPostbacksOnEventLoop else { return [] }
            let postbacks = PostbackResponder(pipeline: pipeline, metrics: metrics, paths: configuration.postbackPaths,
                                              limit: configuration.bodyLimit, clients: configuration.clientAddress)
            return [EventLoopFastPath(postbacks, date: date)]
        }
        let rateLimit = RateLimitRule(limiter: rateLimiter, paths: configuration.postbackPaths,
                                      clients: configuration.clientAddress)
        return .device("device", option: "--port", host: configuration.host, port: configuration.port,
                       eventLoopGroup: eventLoopGroup, handlers: handlers, rateLimit: rateLimit) { router in
            collector.addRoutes(to: router)
        }
    }

    /// The admin listener (`--admin-port`): the operator routes under ``CollectorConfiguration/adminAccess``'s rule.
    public var adminListener: Listener {
        let collector = self
        return .private("admin", option: "--admin-port", access: configuration.adminAccess,
                        port: configuration.adminPort) { router in collector.addAdminRoutes(to: router) }
    }

    /// The admin listener's HTTP application, not yet running, for router-level tests. `onServerRunning` receives
    /// the bound port.
    public func adminApplication(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        frontDoor.application(for: adminListener, logger: logger, onServerRunning: onServerRunning)
    }

    /// The device-facing HTTP application, not yet running, for router-level tests; it migrates the store before
    /// its port opens. The writer must run beside it (``compose(into:)`` adds both to a process's services).
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        var application = frontDoor.application(for: deviceListener, logger: logger, onServerRunning: onServerRunning)
        let store = store
        application.beforeServerStarts { try await store.migrate() }
        return application
    }

    /// The collector alone in a process's one service group (``ServiceComposition``); a host that serves more
    /// (`skan serve` with the signer and the dashboard) adds them to the same composition.
    public func composition(shutdownTimeout: Duration? = nil) -> ServiceComposition {
        var composition = ServiceComposition(frontDoor: frontDoor, shutdownTimeout: shutdownTimeout ?? configuration.shutdownTimeout,
                                             logger: logger)
        composition.add(self)
        return composition
    }

    /// Serves until SIGINT or SIGTERM, then lets in-flight requests finish, commits what they queued, and closes
    /// the store. `onRunning` receives the bound ports once both listeners are up.
    public func run(onRunning: @escaping @Sendable (Ports) async -> Void = { _ in }) async throws(CollectorError) {
        do {
            try await composition().run { bound in await onRunning(Ports(bound)) }
        } catch let error as CollectorError {
            throw error
        } catch let error as ListenerError {
            throw CollectorError(.serviceFailed, error.reason)
        } catch {
            throw CollectorError(.serviceFailed, "the collector stopped: \(error)")
        }
        logger.info("stopped; the store is closed")
    }
}

extension Collector: ComposedPart {
    /// Adds the collector to a process's services: the store (closed last), the writer and the store's periodic jobs,
    /// the migrations before any listener binds, the device listener and the admin listener.
    ///
    /// Services stop in reverse order: the listeners first (their requests already read still reach the writer),
    /// then the writer (everything queued commits), then the store.
    public func compose(into composition: inout ServiceComposition) {
        let store = store
        StoreService.add(store, to: &composition)
        composition.add(worker: WriterService(writer: writer))
        // The engine's periodic jobs (PostgreSQL's refusal cap) run here, not in tasks of the engine's own.
        for job in store.periodicJobs { composition.add(worker: StoreJobService(job: job, logger: logger)) }
        if !configuration.retention.keepsEverything, let expiring = store as? any ExpiringStore {
            composition.add(worker: RetentionService(retention: configuration.retention, store: expiring,
                                                     registry: metrics.registry, logger: logger))
        }
        // The schema is brought up to date before any port opens, so no postback meets an old schema; with
        // several collectors on one database the engine makes sure the migrations run once.
        composition.beforeServerStarts { try await store.migrate() }
        // `/readyz`: the store as `/healthz` sees it (its files the ones opened, a read answered).
        composition.readiness.addCheck { await store.health().map { "store: \($0.code)" } }
        composition.add(deviceListener)
        composition.add(adminListener)
    }
}
