import Foundation
import SKANCore
import SKANStore
import SKANTestSupport
import Testing

/// A repeat of a stored postback is answered as a duplicate and the stored, counted row never changes, on every
/// engine; a repeat whose unsigned values differ is counted as a conflict (and kept: the reader tests read the rows).
@Suite("Repeat conformance", .temporaryFolder)
struct RepeatConformanceTests {
    typealias Engine = StoreConformanceTests.Engine

    static func entry(_ pair: (VerifiedAttribution, [UInt8]), endpoint: String = "/postbacks",
                      clientAddress: String? = nil) -> StoreEntry {
        var accepted = AcceptedPostback(attribution: pair.0, rawBody: pair.1, receivedAt: SQLitePostbackStoreTests.receivedAt,
                                        endpoint: endpoint)
        accepted.clientAddress = clientAddress
        return .accepted(accepted)
    }

    /// A fresh postback, and the same after `change` to what Apple does not sign, both verified, and its id.
    static func pair(changing change: (inout Postback) -> Void) -> (first: (VerifiedAttribution, [UInt8]),
                                                                   changed: (VerifiedAttribution, [UInt8]), id: String) {
        var postback = TestPostbacks.postback()
        let first = TestPostbacks.verified(postback)
        change(&postback)
        return (first, TestPostbacks.verified(postback), postback.transactionID)
    }

    @Test("a repeat with another conversion value is a duplicate and a conflict; the stored row stays", arguments: Engine.allCases)
    func conflictingRepeat(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let (first, changed, id) = Self.pair { $0.conversionValue = 42 }
            #expect(try await store.write([Self.entry(first)]) == [.stored])
            #expect(try await store.write([Self.entry(changed, clientAddress: "203.0.113.9")]) == [.duplicate])
            // The same changed repeat again (a retry, a file loaded twice) is kept and counted once.
            #expect(try await store.write([Self.entry(changed)]) == [.duplicate])
            let stats = try await store.stats()
            #expect(stats.postbacks == 1)
            #expect(stats.duplicates == 2)
            #expect(stats.conflicts == 1)
            let stored = try await store.postbacks(transactionID: id)
            #expect(stored.map(\.fields.conversionValue) == [20])
            try await store.close()
        }
    }

    @Test("a conflicting repeat in the batch that stores the first is found too", arguments: Engine.allCases)
    func conflictInOneBatch(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let (first, changed, _) = Self.pair {
                $0.conversionValue = nil
                $0.coarseConversionValue = .high
            }
            #expect(try await store.write([Self.entry(first), Self.entry(changed), Self.entry(first)]) == [.stored, .duplicate, .duplicate])
            #expect(try await store.stats().postbacks == 1)
            #expect(try await store.stats().conflicts == 1)
            try await store.close()
        }
    }

    @Test("an identical repeat, on the same path or as the developer copy, is no conflict", arguments: Engine.allCases)
    func identicalRepeat(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let pair = TestPostbacks.verified()
            _ = try await store.write([Self.entry(pair)])
            #expect(try await store.write([Self.entry(pair), Self.entry(pair, endpoint: "/.well-known/skadnetwork/report-attribution/")])
                    == [.duplicate, .duplicate])
            let stats = try await store.stats()
            #expect(stats.duplicates == 2)
            #expect(stats.conflicts == 0)
            try await store.close()
        }
    }
}
