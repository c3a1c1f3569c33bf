import Foundation
import SKANCore
import SKANStore
import SKANStoreSQLite
import SKANStorePostgres
import SKANTestSupport
import Testing

/// Every engine behind ``PostbackStore`` must give the same outcomes, counts and rows for the same writes. Each
/// test here runs against every engine in ``Engine``; a new engine joins by adding a case.
@Suite("Store conformance", .temporaryFolder)
struct StoreConformanceTests {
    typealias T = SQLitePostbackStoreTests

    /// The engines under test.
    enum Engine: String, CaseIterable, CustomTestStringConvertible {
        case sqliteFile = "SQLite file"
        case sqliteMemory = "SQLite in memory"
        case memory = "memory store"
        /// A new database on the test server; left out (and the reason printed) when no server could be started.
        case postgres = "PostgreSQL"

        static var allCases: [Engine] {
            [.sqliteFile, .sqliteMemory, .memory] + (PostgresTestServer.isAvailable ? [.postgres] : [])
        }

        var testDescription: String { rawValue }

        /// A new, empty store (a SQLite file goes with the test's temporary folder).
        func make(cap: RejectionCap = RejectionCap()) async throws -> any PostbackStore {
            switch self {
            case .sqliteFile:
                let path = try T.temporaryPath()
                return try await SQLitePostbackStore.open(path: path, durability: .normal, rejectionCap: cap)
            case .sqliteMemory:
                return try SQLitePostbackStore(inMemoryWith: cap)
            case .memory:
                return MemoryPostbackStore(rejectionCap: cap)
            case .postgres:
                let server = try #require(PostgresTestServer.shared)
                let configuration = try PostgresStoreConfiguration(url: try server.makeDatabase())
                // The cap's job is run by `settle`, so that the test decides when.
                return try await PostgresPostbackStore.open(configuration, rejectionCap: cap, capInterval: .seconds(3600))
            }
        }

        /// Lets work the engine does in the background finish: PostgreSQL's refusal cap is a periodic job.
        func settle(_ store: any PostbackStore) async throws {
            if let store = store as? PostgresPostbackStore { try await store.enforceRejectionCap() }
        }
    }

    /// `pair` as an accepted entry under another framework or framework version, the rest as `pair` has it: a store
    /// keys on the framework and counts by the version without reading anything else of it.
    static func accepted(_ pair: (VerifiedAttribution, [UInt8]), framework: Framework? = nil, version: String? = nil) -> StoreEntry {
        var fields = pair.0.fields
        if let version { fields.frameworkVersion = version }
        let other = VerifiedAttribution(framework: framework ?? pair.0.framework, fields: fields, keyName: pair.0.keyName,
                                        scheme: pair.0.scheme, note: nil, detail: pair.0.detail)
        return .accepted(AcceptedPostback(attribution: other, rawBody: pair.1, receivedAt: T.receivedAt, endpoint: "/postbacks"))
    }

    @Test("stores a postback once and calls its repeats duplicates", arguments: Engine.allCases)
    func duplicates(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let pair = TestPostbacks.verified()
            #expect(try await store.write([T.accepted(pair)]) == [.stored])
            #expect(try await store.write([T.accepted(pair), T.accepted(pair)]) == [.duplicate, .duplicate])
            #expect(try await store.stats().postbacks == 1)
            // Counted for the overview's duplicate rate: a repeat of a stored postback and a repeat inside one batch.
            #expect(try await store.stats().duplicates == 2)
            try await store.close()
        }
    }

    @Test("keys duplicates on framework, network, dedup id and window", arguments: Engine.allCases)
    func dedupKey(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let id = UUID().uuidString.lowercased()
            let first = TestPostbacks.verified(transactionID: id)
            let entries = [
                T.accepted(first),
                T.accepted(TestPostbacks.verified(transactionID: id, sequenceIndex: 1)),
                T.accepted(TestPostbacks.verified(transactionID: id, sequenceIndex: 2)),
                T.accepted(TestPostbacks.verified(transactionID: id, adNetworkID: "other.skadnetwork")),
                Self.accepted(first, framework: .adAttributionKit),
                T.accepted(TestPostbacks.verified(transactionID: id, sequenceIndex: 1)),
                Self.accepted(first, framework: .adAttributionKit),
            ]
            #expect(try await store.write(entries) == [.stored, .stored, .stored, .stored, .stored, .duplicate, .duplicate])
            let stored = try await store.postbacks(transactionID: id)
            #expect(stored.count == 5)
            #expect(stored.filter { $0.framework == .adAttributionKit }.count == 1)
            try await store.close()
        }
    }

    @Test("gives back every field of a stored postback", arguments: Engine.allCases)
    func roundTrip(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let pair = TestPostbacks.verified()
            _ = try await store.write([T.accepted(pair)])
            let stored = try #require(try await store.postbacks(transactionID: pair.0.fields.dedupID).first)
            var fields = pair.0.fields
            fields.extras = []
            #expect(stored.fields == fields)
            #expect(stored.framework == .skadnetwork)
            #expect(stored.extrasJSON == nil)
            #expect(stored.rawBody == pair.1)
            #expect(stored.keyName == "simulated-apple-p256")
            #expect(stored.layout == "4.0")
            #expect(stored.endpoint == "/postbacks")
            #expect(stored.receivedAt == "2026-05-28T20:26:40.123Z")
            #expect(try await store.postbacks(transactionID: "no-such-id").isEmpty)
            try await store.close()
        }
    }

    @Test("counts stored postbacks by version and refusals by status", arguments: Engine.allCases)
    func stats(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let pair = TestPostbacks.verified()
            _ = try await store.write([T.accepted(pair), T.accepted(TestPostbacks.verified()), T.accepted(pair),
                                       StatCounterTests.rejected("malformed"), StatCounterTests.rejected("invalid-signature")])
            _ = try await store.write([T.accepted(pair), StatCounterTests.rejected("malformed")])
            let stats = try await store.stats()
            // Two repeats of `pair`: one inside the first batch, one in the second.
            #expect(stats == StoreStats(postbacks: 2, postbacksByKey: [PostbackCounterKey(framework: .skadnetwork, version: "4.0"): 2], rejected: 3,
                                        rejectedByStatus: ["malformed": 2, "invalid-signature": 1], rejectedDropped: 0,
                                        duplicates: 2))
            #expect(stats.duplicateRate == 0.5)
            try await store.close()
        }
    }

    @Test("batches of accepted postbacks only count what they stored",
          arguments: Engine.allCases)
    func statsOfAcceptedBatches(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let pair = TestPostbacks.verified()
            let other = TestPostbacks.verified()
            #expect(try await store.write([T.accepted(pair), Self.accepted(other, framework: .adAttributionKit), T.accepted(pair)])
                    == [.stored, .stored, .duplicate])
            #expect(try await store.write([T.accepted(pair), T.accepted(other), Self.accepted(other, framework: .adAttributionKit)])
                    == [.duplicate, .stored, .duplicate])
            let stats = try await store.stats()
            #expect(stats.postbacks == 3)
            // The relabelled postback keeps its 4.0 fields: it counts under its framework and that version on every engine.
            #expect(stats.postbacksByKey == [PostbackCounterKey(framework: .skadnetwork, version: "4.0"): 2,
                                             PostbackCounterKey(framework: .adAttributionKit, version: "4.0"): 1])
            #expect(stats.postbacksByVersion == ["4.0": 2])
            try await store.close()
        }
    }

    @Test("a batch of several versions and frameworks counts each stored postback under its own version",
          arguments: Engine.allCases)
    func statsByVersionInOneBatch(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let aakBody = TestPostbacks.aakBody()
            guard case .valid(let aak) = TestPostbacks.verifier.verify(aakBody) else {
                Issue.record("the AdAttributionKit test postback did not verify")
                try await store.close()
                return
            }
            let stored = TestPostbacks.verified()
            #expect(try await store.write([T.accepted(stored)]) == [.stored])
            let v22 = TestPostbacks.verified(), v30 = TestPostbacks.verified(), again30 = TestPostbacks.verified()
            let aakEntry = StoreEntry.accepted(AcceptedPostback(attribution: aak, rawBody: aakBody, receivedAt: T.receivedAt,
                                                                endpoint: "/postbacks"))
            let batch = [Self.accepted(v22, version: "2.2"), Self.accepted(v30, version: "3.0"), aakEntry,
                         T.accepted(stored), Self.accepted(again30, version: "3.0"), T.accepted(TestPostbacks.verified()),
                         Self.accepted(v22, version: "2.2"), aakEntry]
            #expect(try await store.write(batch) == [.stored, .stored, .stored, .duplicate, .stored, .stored, .duplicate, .duplicate])
            let stats = try await store.stats()
            // Keyed by framework and version: AdAttributionKit, which sends no version, is not listed as one.
            #expect(stats.postbacksByKey == [PostbackCounterKey(framework: .skadnetwork, version: "2.2"): 1,
                                             PostbackCounterKey(framework: .skadnetwork, version: "3.0"): 2,
                                             PostbackCounterKey(framework: .skadnetwork, version: "4.0"): 2,
                                             PostbackCounterKey(framework: .adAttributionKit, version: nil): 1])
            #expect(stats.postbacksByVersion == ["2.2": 1, "3.0": 2, "4.0": 2])
            #expect(stats.postbacksByFramework == ["skadnetwork": 5, "adattributionkit": 1])
            #expect(stats.postbacks == 6)
            #expect(stats.duplicates == 3)
            try await store.close()
        }
    }

    @Test("keeps the newest refusals within the cap and counts what it dropped", arguments: Engine.allCases)
    func rejectionCap(_ engine: Engine) async throws {
        let store = try await engine.make(cap: RejectionCap(maximumRows: 2))
        try await StoreHost.running([store]) {
            _ = try await store.write([StatCounterTests.rejected("malformed"), StatCounterTests.rejected("invalid-signature"),
                                       StatCounterTests.rejected("malformed")])
            _ = try await store.write([StatCounterTests.rejected("unsupported-version")])
            try await engine.settle(store)
            let stats = try await store.stats()
            #expect(stats.rejectedByStatus == ["malformed": 1, "unsupported-version": 1])
            #expect(stats.rejected == 2)
            #expect(stats.rejectedDropped == 2)
            try await store.close()
        }
    }

    @Test("runs on PostgreSQL too, or says why not (and fails where SKAN_REQUIRE_POSTGRES=1)")
    func postgresRuns() {
        if let reason = PostgresTestServer.skipReason {
            print("PostgreSQL tests skipped: \(reason)")
            #expect(!PostgresTestServer.isRequired, "SKAN_REQUIRE_POSTGRES=1, but no PostgreSQL test server: \(reason)")
        } else {
            #expect(Engine.allCases.contains(.postgres))
        }
    }

    @Test("is healthy while open, and takes nothing once closed", arguments: Engine.allCases)
    func closed(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            #expect(await store.health() == nil)
            try await store.close()
            await #expect(throws: StoreError.self) { _ = try await store.write([T.accepted(TestPostbacks.verified())]) }
        }
    }
}
