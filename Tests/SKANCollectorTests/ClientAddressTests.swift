import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import SKANCollector
import SKANHTTP
import SKANRelay
import SKANStore
import SKANTestSupport
import Testing

/// The address a postback is stored with (and that a conflict names): the peer's, or behind a trusted proxy the
/// right-most `X-Forwarded-For` entry that is not a proxy; a header from anyone else is never believed.
@Suite("Client addresses behind trusted proxies")
struct ClientAddressTests {
    enum Path: String, CaseIterable, CustomTestStringConvertible {
        case eventLoop = "event loop"
        case router

        var testDescription: String { rawValue }
    }

    /// Posts one postback over loopback with `forwardedFor` and returns the client address stored with it.
    static func storedAddress(_ path: Path, trustedProxies: [String], relay: Bool = false,
                              forwardedFor: [String]) async throws -> String? {
        var configuration = CollectorConfiguration(port: 0, answersPostbacksOnEventLoop: path == .eventLoop)
        configuration.clientAddress = ClientAddress(trustedProxies: try trustedProxies.map { try AddressRange($0) })
        let location = "memory:addresses-\(UUID().uuidString)"
        let engine = MemoryEngine()
        let store = try engine.openStore(location, options: StoreOptions(durability: .normal))
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let router = relay
            ? RelayRouter(configuration: RelayConfiguration(destinations: [
                RelayDestination(name: "partner", url: URL(string: "http://127.0.0.1:9/in")!)]))
            : nil
        let collector = try Collector(configuration: configuration, store: store, verifier: TestPostbacks.verifier,
                                      logger: logger, relay: router)
        try await StoreHost.running([store]) {
            try await store.migrate()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await collector.writer.run() }
                try await collector.application().test(.live) { client in
                    var headers: HTTPFields = [.contentType: "application/json"]
                    for value in forwardedFor { headers.append(HTTPField(name: HTTPField.Name("X-Forwarded-For")!, value: value)) }
                    let status = try await client.execute(uri: "/postbacks", method: .post, headers: headers,
                                                          body: ByteBuffer(string: TestPostbacks.postback().json)) { $0.status.code }
                    #expect(status == 200)
                }
                collector.writer.finish()
                try await group.waitForAll()
            }
            try await store.close()
        }
        let reader = try await engine.openReader(location)
        var addresses: [String?] = []
        try await StoreHost.running([reader]) {
            var names: [String] = []
            try await reader.export(.postbacks) { names = $0 } each: { row in
                let index = try #require(names.firstIndex(of: PostbackTable.clientAddress.name))
                if case .text(let bytes) = row.value(at: index) { addresses.append(String(decoding: bytes, as: UTF8.self)) }
                else { addresses.append(nil) }
            }
            await reader.close()
        }
        #expect(addresses.count == 1)
        return addresses.first ?? nil
    }

    @Test("behind a trusted proxy, the right-most address that is not a proxy is stored", arguments: Path.allCases)
    func forwarded(_ path: Path) async throws {
        #expect(try await Self.storedAddress(path, trustedProxies: ["127.0.0.1"],
                                             forwardedFor: ["203.0.113.7"]) == "203.0.113.7")
        // A client's own header comes first; the proxies append what they saw, the nearest last.
        #expect(try await Self.storedAddress(path, trustedProxies: ["127.0.0.0/8", "10.0.0.0/8"],
                                             forwardedFor: ["198.51.100.66, 203.0.113.7", "10.1.2.3"]) == "203.0.113.7")
        #expect(try await Self.storedAddress(path, trustedProxies: ["127.0.0.1"],
                                             forwardedFor: ["2001:db8::5"]) == "2001:db8::5")
    }

    @Test("a peer that is not a trusted proxy is the client, whatever its header says", arguments: Path.allCases)
    func untrustedPeer(_ path: Path) async throws {
        #expect(try await Self.storedAddress(path, trustedProxies: ["10.0.0.0/8"],
                                             forwardedFor: ["203.0.113.7"]) == "127.0.0.1")
        // With a relay and no trusted proxy, the peer is what the relay's `ip-address` and the row say.
        #expect(try await Self.storedAddress(path, trustedProxies: [], relay: true,
                                             forwardedFor: ["203.0.113.7"]) == "127.0.0.1")
    }

    @Test("without trusted proxies or a relay, no address is stored", arguments: Path.allCases)
    func notRecorded(_ path: Path) async throws {
        #expect(try await Self.storedAddress(path, trustedProxies: [], forwardedFor: ["203.0.113.7"]) == nil)
    }
}
