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
    case serveDashboard = "serve's dashboard port"
    case dashboard = "dashboard"

    var testDescription: String { rawValue }

    /// Listeners the process of this one has: the budget's shares are split between them.
    var listenersInProcess: Int {
        switch self {
        case .collectorDevice, .collectorAdmin, .signerPrivate, .signerPublic: 2
        case .serveDashboard: 3
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
        case .collectorAdmin, .signerPublic, .serveDashboard, .dashboard: Self.probe
        }
    }

    /// Starts this listener's process part with `timeouts` and, when given, a connection budget of `limit`
    /// (logged through `logger`), runs `body` with the listener's port, then shuts it down gracefully.
    func serve<T: Sendable>(timeouts: FrontDoor.Timeouts, limit: Int? = nil, logger: Logger = Self.quiet,
                            _ body: @escaping @Sendable (Int) async throws -> T) async throws -> T {
        switch self {
        case .collectorDevice, .collectorAdmin, .serveDashboard:
            let configuration = CollectorConfiguration(port: 0, idleTimeout: timeouts.idle, requestTimeout: timeouts.request,
                                                       writeTimeout: timeouts.write, unsentLimit: timeouts.unsentLimit,
                                                       maximumConnections: limit)
            let collector = try Collector(configuration: configuration,
                                          store: try SQLitePostbackStore(inMemoryWith: RejectionCap()),
                                          verifier: TestPostbacks.verifier, logger: logger)
            if self == .serveDashboard {
                // Beside the collector in its one service group, through its front door, as `skan serve
                // --dashboard-port` runs it.
                var composition = collector.composition()
                composition.add(DashboardServer(dashboard: try await Dashboard(reader: EmptyReader()), access: .loopback,
                                                port: 0, logger: logger, frontDoor: collector.frontDoor))
                return try await composition.serve { bound in try await body(bound["dashboard"] ?? 0) }
            }
            let device = self == .collectorDevice
            return try await collector.serve(onPorts: { ports in try await body(device ? ports.device : ports.admin) })
        case .signerPrivate, .signerPublic:
            let door = FrontDoor(timeouts: timeouts, budget: limit.map { ConnectionBudget(limit: $0, logger: logger) })
            let signer = Signer(keys: SignerKeys(), port: 0, logger: logger, webAdStore: MemoryWebAdStore(),
                                publicHost: "127.0.0.1", publicPort: 0, frontDoor: door)
            let name = self == .signerPrivate ? "signer" : "public"
            return try await signer.composition().serve { bound in try await body(bound[name] ?? 0) }
        case .dashboard:
            let door = FrontDoor(timeouts: timeouts, budget: limit.map { ConnectionBudget(limit: $0, logger: logger) })
            let dashboard = try await Dashboard(reader: EmptyReader())
            var composition = ServiceComposition(frontDoor: door, logger: logger)
            composition.add(DashboardServer(dashboard: dashboard, access: .loopback, port: 0, logger: logger, frontDoor: door))
            return try await composition.serve { bound in try await body(bound["dashboard"] ?? 0) }
        }
    }

    static var quiet: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
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
