import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SKANCore
import SKANTestSupport
import SKANCollector
import SKANStore
import SKANStoreSQLite
import Testing

/// How a test's requests reach the collector.
enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Straight into Hummingbird's router, no sockets: the router's postback route.
    case router
    /// Over loopback HTTP to the running server, where ``PostbackResponder`` answers postbacks on the event loop
    /// (AsyncHTTPClient, which opens a new connection when the server closes one).
    case eventLoop = "event loop"

    var setup: TestingSetup {
        switch self {
        case .router: .router
        case .eventLoop: .ahc(.http)
        }
    }

    var testDescription: String { rawValue }
}

/// A collector over an in-memory store, with its writer running, for route tests.
enum CollectorHarness {
    static let receivedAt = Date(timeIntervalSince1970: 1_780_000_000)

    static func withCollector<T: Sendable>(
        _ transport: Transport = .router,
        configuration: CollectorConfiguration = CollectorConfiguration(port: 0),
        verifier: AttributionVerifier = TestPostbacks.verifier,
        _ test: @escaping @Sendable (Collector, any TestClientProtocol) async throws -> T
    ) async throws -> T {
        let store = try SQLitePostbackStore(inMemoryWith: RejectionCap())
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let collector = try Collector(configuration: configuration, store: store, verifier: verifier,
                                      logger: logger, now: { receivedAt })
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { await collector.writer.run(); return nil }
            let result = try await collector.application().test(transport.setup) { client in try await test(collector, client) }
            collector.writer.finish()
            try await group.waitForAll()
            return result
        }
    }

    /// Runs `test` with a client of `collector`'s admin listener (the operator routes), reached as `transport` says.
    static func withAdmin<T: Sendable>(
        _ collector: Collector, _ transport: Transport = .router,
        _ test: @escaping @Sendable (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        try await collector.adminApplication().test(transport.setup) { client in try await test(client) }
    }

    static func post(_ client: some TestClientProtocol, _ body: [UInt8], path: String = "/postbacks",
                     contentType: String? = "application/json") async throws -> (status: Int, body: String) {
        var headers: HTTPFields = [:]
        if let contentType { headers[.contentType] = contentType }
        return try await client.execute(uri: path, method: .post, headers: headers,
                                        body: ByteBuffer(bytes: body)) { response in
            (Int(response.status.code), String(buffer: response.body))
        }
    }

    static func get(_ client: some TestClientProtocol, _ path: String,
                    headers: HTTPFields = [:]) async throws -> (status: Int, body: String) {
        try await client.execute(uri: path, method: .get, headers: headers) { response in
            (Int(response.status.code), String(buffer: response.body))
        }
    }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }
}
