import Foundation
import Hummingbird
import Logging
import SKANCollector
import SKANCore
import SKANDashboard
import SKANHTTP
import SKANSigner
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import ServiceLifecycle
import Testing

/// Every listener the project serves, each started for real on port 0 through its own service: the front-door
/// cases run against each of them alike.
enum ListenerUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case collectorDevice = "collector device port"
    case collectorAdmin = "collector admin port"
    case signerPrivate = "signer private port"
    case signerPublic = "signer public port"
    case dashboard = "dashboard"

    var testDescription: String { rawValue }

    /// Listeners the process of this one has: the budget's shares are split between them.
    var listenersInProcess: Int {
        switch self {
        case .collectorDevice, .collectorAdmin, .signerPrivate, .signerPublic: 2
        case .dashboard: 1
        }
    }

    /// A request every listener answers quickly, on whatever path it takes (a 404 is an answer too).
    static let probe = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"

    /// What a client that never reads pipelines: a request the listener answers on its event-loop path when it has
    /// one (the collector's postback refused from its head, the signer's impression refused from its body), which
    /// is where replies were written without regard to the client; the probe elsewhere.
    var pipelined: String {
        switch self {
        case .collectorDevice: "POST /postbacks HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n"
        case .signerPrivate: "POST /v1/impressions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        case .collectorAdmin, .signerPublic, .dashboard: Self.probe
        }
    }

    /// Starts this listener's process part with `timeouts` and, when given, a connection budget of `limit`
    /// (logged through `logger`), runs `body` with the listener's port, then shuts it down gracefully.
    func serve<T: Sendable>(timeouts: FrontDoor.Timeouts, limit: Int? = nil, logger: Logger = Self.quiet,
                            _ body: @escaping @Sendable (Int) async throws -> T) async throws -> T {
        switch self {
        case .collectorDevice, .collectorAdmin:
            let configuration = CollectorConfiguration(port: 0, idleTimeout: timeouts.idle, requestTimeout: timeouts.request,
                                                       writeTimeout: timeouts.write, unsentLimit: timeouts.unsentLimit,
                                                       maximumConnections: limit)
            let collector = try Collector(configuration: configuration,
                                          store: try SQLitePostbackStore(inMemoryWith: RejectionCap()),
                                          verifier: TestPostbacks.verifier, logger: logger)
            let device = self == .collectorDevice
            return try await collector.serve(onPorts: { ports in try await body(device ? ports.device : ports.admin) })
        case .signerPrivate, .signerPublic:
            let door = FrontDoor(timeouts: timeouts, budget: limit.map { ConnectionBudget(limit: $0, logger: logger) })
            let signer = Signer(keys: SignerKeys(), port: 0, logger: logger, webAdStore: MemoryWebAdStore(),
                                publicHost: "127.0.0.1", publicPort: 0, frontDoor: door)
            let isPrivate = self == .signerPrivate
            return try await Self.run(logger: logger, body) { port in
                signer.services(onServerRunning: { if isPrivate { await port($0) } },
                                onPublicRunning: { if !isPrivate { await port($0) } })
            }
        case .dashboard:
            let door = FrontDoor(timeouts: timeouts, budget: limit.map { ConnectionBudget(limit: $0, logger: logger) })
            let dashboard = try await Dashboard(reader: EmptyReader())
            return try await Self.run(logger: logger, body) { port in
                [DashboardServer(dashboard: dashboard, access: .loopback, port: 0, logger: logger, frontDoor: door)
                    .application(onServerRunning: port)]
            }
        }
    }

    static var quiet: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }

    /// Runs `services` in a group until `body`, given the port they report, returns; then shuts them down.
    static func run<T: Sendable>(logger: Logger, _ body: @escaping @Sendable (Int) async throws -> T,
                                 services: (@escaping @Sendable (Int) async -> Void) -> [any Service]) async throws -> T {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services { continuation.yield($0) }, logger: logger))
        return try await withThrowingTaskGroup(of: T?.self) { tasks in
            tasks.addTask {
                defer { continuation.finish() }
                try await group.run()
                return nil
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await tasks.waitForAll()
                throw SlowClientError("the server stopped before its listener was up")
            }
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body(port)) } catch { outcome = .failure(error) }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try outcome.get()
        }
    }
}

/// A store with nothing in it, for the dashboard's pages.
struct EmptyReader: PostbackReader {
    func aggregate(_ query: AggregateQuery, each: (AggregateRow) throws -> Void) async throws {}
    func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) { ("", []) }
    func export(_ table: ExportTable, header: ([String]) throws -> Void, each: (ExportRow) throws -> Void) async throws {}
    func stats() async throws -> StoreStats {
        StoreStats(postbacks: 0, postbacksByKey: [:], rejected: 0, rejectedByStatus: [:], rejectedDropped: 0, duplicates: 0)
    }
    func latestRefusals(limit: Int) async throws -> [RefusalSummary] { [] }
    func close() async {}
}
