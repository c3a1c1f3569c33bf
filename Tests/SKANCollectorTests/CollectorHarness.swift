import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SKANCore
import SKANTestSupport
import SKANCollector
import SKANStore

/// A collector over an in-memory store, with its writer running, for router-level tests.
enum CollectorHarness {
    static let receivedAt = Date(timeIntervalSince1970: 1_780_000_000)

    static func withCollector<T: Sendable>(
        configuration: CollectorConfiguration = CollectorConfiguration(port: 0),
        verifier: PostbackVerifier = TestPostbacks.verifier,
        _ test: @escaping @Sendable (Collector, any TestClientProtocol) async throws -> T
    ) async throws -> T {
        let store = try SQLitePostbackStore(inMemoryWith: RejectionCap())
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let collector = try Collector(configuration: configuration, store: store, verifier: verifier,
                                      logger: logger, now: { receivedAt })
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { await collector.writer.run(); return nil }
            let result = try await collector.application().test(.router) { client in try await test(collector, client) }
            collector.writer.finish()
            try await group.waitForAll()
            return result
        }
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

    static func get(_ client: some TestClientProtocol, _ path: String) async throws -> (status: Int, body: String) {
        try await client.execute(uri: path, method: .get) { response in
            (Int(response.status.code), String(buffer: response.body))
        }
    }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }
}
