import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// A part of a process that ``ServiceComposition`` hosts: the collector, the signer, the dashboard. It adds its
/// listeners (whose routes come from its `addRoutes(to:)`), its long-running services and its start hooks.
public protocol ComposedPart: Sendable {
    /// Adds the part's listeners, services and hooks to `composition`.
    func compose(into composition: inout ServiceComposition)
}

/// The one builder of a process's ``ServiceGroup``: one Hummingbird application per ``Listener``, every listener
/// through one ``FrontDoor``, the start hooks (migrations) run once before any listener binds, and one graceful
/// shutdown for everything.
///
/// Services stop in the reverse of their start order, so the group is laid out as
/// `resources, workers, listeners`: on SIGTERM the listeners stop first (their in-flight requests finish and reach
/// the workers), then the workers (a writer commits what it queued; jobs end), then the resources (stores close).
///
/// ```swift
/// var composition = ServiceComposition(frontDoor: door, logger: logger)
/// composition.add(collector)
/// composition.add(signer)
/// try await composition.run { bound in print("listening on", bound["device"]!) }
/// ```
public struct ServiceComposition: Sendable {
    /// The timeouts and connection budget of every listener.
    public let frontDoor: FrontDoor
    /// How long a graceful shutdown may take before the group cancels what is left; `nil`: no limit.
    public var shutdownTimeout: Duration?
    let logger: Logger
    private(set) var listeners: [Listener] = []
    private var resources: [any Service] = []
    private var workers: [any Service] = []
    private var hooks: [@Sendable () async throws -> Void] = []
    /// Whether the process should be sent traffic: `/readyz` on every listener. Parts add their checks to it (the
    /// collector its store's health) while they compose.
    public let readiness = Readiness()
    /// How long `/readyz` fails, on a graceful shutdown, before the listeners stop accepting: time for a load
    /// balancer to see it and stop sending (its probe interval times its failure threshold); the front door's
    /// ``FrontDoor/Timeouts/drain`` unless set.
    public var drainDelay: Duration
    /// How the drain delay is waited; injected so that tests hold and release it without sleeping.
    public var drainWait: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

    /// An empty composition whose listeners go through `frontDoor`.
    public init(frontDoor: FrontDoor = FrontDoor(), shutdownTimeout: Duration? = nil, logger: Logger) {
        self.frontDoor = frontDoor
        self.shutdownTimeout = shutdownTimeout
        self.logger = logger
        self.drainDelay = frontDoor.timeouts.drain
    }

    /// Adds `part`'s listeners, services and hooks.
    public mutating func add(_ part: some ComposedPart) {
        part.compose(into: &self)
    }

    /// Adds a listener; its application is made by ``serviceGroup(gracefulShutdownSignals:onRunning:)``.
    public mutating func add(_ listener: Listener) {
        listeners.append(listener)
    }

    /// Adds a service that holds something every other service uses (a store, a database pool): started first,
    /// stopped last, after the workers finished with it. Later resources stop before earlier ones.
    public mutating func add(resource: any Service) {
        resources.append(resource)
    }

    /// Adds a service that does work for the listeners (a group-commit writer, a periodic job): started once the
    /// start hooks (migrations) have run, so that it never meets an old schema; stopped after the listeners, before
    /// the resources.
    public mutating func add(worker: any Service) {
        workers.append(worker)
    }

    /// Adds work to finish before any listener serves and any worker starts (a store's migrations): run once, in the
    /// order added, while the resources already run and the listeners answer only their probes (``StartupGate``).
    /// If one throws, the group ends with its error; no request was served. A composition without a listener runs no
    /// hooks.
    public mutating func beforeServerStarts(_ hook: @escaping @Sendable () async throws -> Void) {
        hooks.append(hook)
    }

    /// The listeners added so far, for ``ListenerProbe/check(_:)`` before a command creates anything.
    public var addedListeners: [Listener] { listeners }

    /// The single service group: resources, the start hooks, workers, one application per listener, and last the
    /// drain (stopped first). `onRunning` is called once, when every listener is bound and the start hooks have run,
    /// with their ports: a command prints "listening" there and nowhere else.
    ///
    /// The listeners bind at once, while the hooks (migrations) still run: they answer `/livez` and, until the hooks
    /// finish, nothing but 503 (``StartupGate``), so that an orchestrator sees a live process through a long
    /// migration and sends it no traffic before it is ready. On a graceful shutdown `/readyz` fails first, then
    /// after ``drainDelay`` the listeners stop accepting.
    public func serviceGroup(gracefulShutdownSignals: [UnixSignal] = [],
                             onRunning: @escaping @Sendable (BoundListeners) async -> Void = { _ in }) -> ServiceGroup {
        let signal = StartSignal()
        let startup = StartupReport(expected: Set(listeners.map(\.name)))
        let readiness = readiness
        var applications: [any Service] = []
        for listener in listeners {
            let application = frontDoor.application(for: listener, logger: logger, readiness: readiness) { port in
                if let all = startup.bound(listener.name, port: port) { await onRunning(BoundListeners(ports: all)) }
            }
            applications.append(ListenerService(application: application, listener: listener))
        }
        // A composition without a listener runs no hooks, and its workers wait for them.
        let starting: [any Service] = listeners.isEmpty ? [] : [
            StartHooks(hooks: hooks, signal: signal, readiness: readiness, startup: startup, onRunning: onRunning),
        ]
        let gated: [any Service] = workers.map { AfterStart(service: $0, signal: signal) }
        let draining = Draining(readiness: readiness, delay: drainDelay, wait: drainWait)
        var configuration = ServiceGroupConfiguration(services: resources + starting + gated + applications + [draining],
                                                      gracefulShutdownSignals: gracefulShutdownSignals, logger: logger)
        configuration.maximumGracefulShutdownDuration = shutdownTimeout
        return ServiceGroup(configuration: configuration)
    }

    /// Runs the group until SIGTERM or SIGINT (or until a service fails), then shuts everything down gracefully.
    /// A listener that cannot bind ends it with a ``ListenerError`` naming the address, the port and the option.
    public func run(onRunning: @escaping @Sendable (BoundListeners) async -> Void = { _ in }) async throws {
        try await serviceGroup(gracefulShutdownSignals: [.sigterm, .sigint], onRunning: onRunning).run()
    }
}

/// A listener's application as a service of the group, its bind failure turned into a ``ListenerError``.
struct ListenerService<Application: ApplicationProtocol>: Service, CustomStringConvertible {
    let application: Application
    let listener: Listener

    var description: String { "listener \(listener.name)" }

    func run() async throws {
        do {
            try await application.run()
        } catch {
            throw ListenerError.binding(listener, error) ?? error
        }
    }
}

/// A worker that starts once the composition's start hooks have run (a sweep of a table the migrations create).
struct AfterStart: Service, CustomStringConvertible {
    let service: any Service
    let signal: StartSignal

    var description: String { "\(service)" }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await signal.wait() }
        } catch is CancellationError where Task.isShuttingDownGracefully {
            // Stopped before the hooks finished: no listener served, so there is no work to finish.
            return
        }
        try await service.run()
    }
}
