import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SKANCollector
import SKANCore
import SKANRelay
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// What the HTTP layer knew of a postback's request reaches the relay's JSON body: the user agent on both paths,
/// the peer's address where there is a connection (an in-process router test has none; `ClientAddressTests` covers both
/// paths over loopback).
@Suite("Relay arrival members")
struct RelayArrivalTests {
    @Test("a forwarded body carries the request's user agent, its received time and the peer's address",
          arguments: Transport.allCases)
    func members(_ transport: Transport) async throws {
        let store = try SQLitePostbackStore(inMemoryWith: RejectionCap())
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let destination = RelayDestination(name: "partner", url: URL(string: "http://127.0.0.1:9/in")!,
                                           body: .json(adding: [.receivedAt, .ipAddress, .userAgent]))
        let collector = try Collector(configuration: CollectorConfiguration(port: 0), store: store,
                                      verifier: TestPostbacks.verifier, logger: logger,
                                      relay: RelayRouter(configuration: RelayConfiguration(destinations: [destination])),
                                      now: { CollectorHarness.receivedAt })
        let postback = TestPostbacks.postback()
        let (body, transactionID) = (Array(postback.json.utf8), postback.transactionID)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await collector.writer.run() }
            try await collector.application().test(transport.setup) { client in
                var headers: HTTPFields = [.contentType: "application/json"]
                headers[.userAgent] = "com.apple.skadnetworkd (unknown version) CFNetwork/1.0 Darwin/22.0.0"
                let status = try await client.execute(uri: "/postbacks", method: .post, headers: headers,
                                                      body: ByteBuffer(bytes: body)) { $0.status.code }
                #expect(status == 200)
            }
            collector.writer.finish()
            try await group.waitForAll()
        }
        let entries = try await store.claim(destination: "partner", limit: 10, now: Date(), leaseUntil: Date().addingTimeInterval(60))
        let entry = try #require(entries.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(entry.item.body)) as? [String: Any])
        #expect(object["transaction-id"] as? String == transactionID)
        #expect(object["user-agent"] as? String == "com.apple.skadnetworkd (unknown version) CFNetwork/1.0 Darwin/22.0.0")
        #expect(object["received-at"] as? String == Timestamp.iso8601(CollectorHarness.receivedAt))
        switch transport {
        case .eventLoop: #expect(object["ip-address"] as? String == "127.0.0.1")
        case .router: #expect(object["ip-address"] is NSNull)
        }
        try await store.close()
    }
}
