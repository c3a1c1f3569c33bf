import Foundation
import NIOCore
import PostgresNIO
import SKANCore
import SKANStore
import SKANStoreSQLite
@testable import SKANStorePostgres
import SKANTestSupport
import Testing

/// Batches lock their rows in key order: two PostgreSQL collectors given the same postbacks in different orders hit
/// `deadlock detected (40P01)` when each locked keys in its arrival order.
@Suite("PostgreSQL batches in key order")
struct PostgresBatchOrderTests {
    /// Postbacks of a few transaction ids, each id in several windows (the sequence index is part of the key), with
    /// ids whose order as text differs from their order as numbers.
    static let postbacks: [AcceptedPostback] = {
        var postbacks: [AcceptedPostback] = []
        for id in ["b", "a", "a10", "a9", "É", "c"] {
            for window in [2, 0, 1] {
                guard case .accepted(let postback) = SQLitePostbackStoreTests.accepted(
                    TestPostbacks.verified(transactionID: "tx-\(id)", sequenceIndex: window)) else { fatalError() }
                postbacks.append(postback)
            }
        }
        return postbacks
    }()

    /// The elements of a one-dimensional array as PostgreSQL's binary format carries them (`nil` for NULL).
    static func elements(_ array: PostgresColumnArray) throws -> [[UInt8]?] {
        struct Truncated: Error {}
        var buffer = ByteBuffer()
        array.encode(into: &buffer, context: .default)
        func int() throws -> Int32 {
            guard let value = buffer.readInteger(as: Int32.self) else { throw Truncated() }
            return value
        }
        let dimensions = try int()
        _ = try int()  // has nulls
        _ = try int()  // element type
        guard dimensions == 1 else { return [] }
        let count = try int()
        _ = try int()  // lower bound
        return try (0..<count).map { _ in
            let length = try int()
            if length < 0 { return nil }
            guard let bytes = buffer.readBytes(length: Int(length)) else { throw Truncated() }
            return bytes
        }
    }

    /// A column's values in the batch's row order: text as text, integers as big-endian 64-bit numbers.
    static func column(_ rows: BatchRows, _ column: PostbackColumn) throws -> [String] {
        let index = try #require(PostbackTable.columns.firstIndex { $0.name == column.name })
        return try elements(rows.columns[index]).map { bytes in
            guard let bytes else { return "NULL" }
            if column.kind == .integer { return String(bytes.reduce(Int64(0)) { $0 << 8 | Int64($1) }) }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    @Test("the insert's arrays hold the rows sorted by the unique key, whatever order the batch came in")
    func arraysInKeyOrder() throws {
        var generator = SystemRandomNumberGenerator()
        let keyed = Self.postbacks.map { postback in (key: PostbackTable.uniqueKey.map { $0.value(postback) }, postback: postback) }
        let expected = keyed.sorted { BatchRows.precedes($0.key, $1.key) }
        // Text by its UTF-8 bytes, then the window as a number.
        #expect(expected.map(\.postback.attribution.fields.dedupID).first == "tx-a")
        #expect(expected.prefix(3).map { $0.key[2] } == [.integer(0), .integer(1), .integer(2)])
        let ids = try Self.column(BatchRows(keyed), PostbackTable.transactionID)
        #expect(ids == ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(ids.last == "tx-É")
        for order in [keyed, keyed.reversed(), keyed.shuffled(using: &generator), keyed.shuffled(using: &generator)] {
            let rows = BatchRows(order)
            #expect(try Self.column(rows, PostbackTable.transactionID) == ids)
            let windows = try Self.column(rows, PostbackTable.dedupSequenceIndex)
            #expect(windows == Array(repeating: ["0", "1", "2"], count: 6).flatMap { $0 })
            // The last array gives each row's place in the batch as it came, which the insert numbers ids by.
            let arrivals = try Self.elements(rows.columns[PostbackTable.columns.count]).map { bytes in
                Int((bytes ?? []).reduce(Int64(0)) { $0 << 8 | Int64($1) })
            }
            #expect(arrivals.map { order[$0].key } == expected.map(\.key))
            // The counters' rows are sorted too: one order in every collector.
            #expect(try Self.elements(rows.counters[BatchRows.counterColumns.count]).count == 1)
        }
    }

    @Test("ids follow arrival, as SQLite's do, though rows are inserted in key order",
          .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"))
    func idsInArrivalOrder() async throws {
        let server = try #require(PostgresTestServer.shared)
        let url = try server.makeDatabase()
        let store = try await PostgresPostbackStore.open(try PostgresStoreConfiguration(url: url))
        try await StoreHost.running([store]) {
            let (template, body) = TestPostbacks.verified()
            let ids = ["m", "z", "a", "q", "b"]
            #expect(try await store.write(ids.map { Self.accepted(template, body, dedupID: $0) }) == Array(repeating: .stored, count: 5))
            // With a refusal: the other statement.
            #expect(try await store.write([Self.accepted(template, body, dedupID: "y"), StatCounterTests.rejected("malformed"),
                                           Self.accepted(template, body, dedupID: "c")]) == [.stored, .rejectionRecorded, .stored])
            let stored = try server.psql(url, "SELECT transaction_id FROM postbacks ORDER BY id").split(separator: "\n").map(String.init)
            #expect(stored == ids + ["y", "c"])
            try await store.close()
        }
    }

    @Test("the key order is total and strict: no key precedes itself, and of two different keys one comes first")
    func totalOrder() {
        let values: [ColumnValue] = [.null, .integer(-1), .integer(2), .text("a"), .text("\u{E9}"), .text("e\u{301}"), .blob([1])]
        // "\u{E9}" and "e\u{301}" are one string to Swift but two keys to PostgreSQL: they must not tie.
        for (i, a) in values.enumerated() {
            #expect(!BatchRows.precedes([a], [a]))
            for (j, b) in values.enumerated() where i != j {
                #expect(BatchRows.precedes([a], [b]) != BatchRows.precedes([b], [a]), "\(a) \(b)")
            }
        }
    }

    @Test("two stores writing the same batches in opposite and shuffled orders at once never deadlock, and each entry's outcome is its own",
          .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"))
    func concurrentStoresDoNotDeadlock() async throws {
        let server = try #require(PostgresTestServer.shared)
        let configuration = try PostgresStoreConfiguration(url: try server.makeDatabase())
        let first = try await PostgresPostbackStore.open(configuration)
        let second = try await PostgresPostbackStore.open(configuration)
        try await StoreHost.running([first, second]) {
            // Both pools connected first, so that the two batches of a round overlap in the database.
            _ = try await (first.stats(), second.stats())
            var generator = SystemRandomNumberGenerator()
            var total = 0
            let (template, body) = TestPostbacks.verified()
            // Four rounds of 800: ten rounds of 2,000 held the shared event loops for 20-30 s, long enough that HTTP
            // tests running beside it in the same process timed out waiting for connections.
            for round in 0..<4 {
                // Large batches overlap for longer; one signed postback under many ids (the store checks no signature).
                let batch = (0..<800).map { index in
                    Self.accepted(template, body, dedupID: "r\(round)-\(index)")
                }
                // A refusal in some rounds takes the other statement (BatchInsert, counters added after it).
                var other = round % 2 == 0 ? Array(batch.reversed()) : batch.shuffled(using: &generator)
                if round % 4 == 3 { other.insert(StatCounterTests.rejected("malformed"), at: other.count / 2) }
                let reordered = other
                async let one = first.write(batch)
                async let two = second.write(reordered)
                let (outcomes, otherOutcomes) = try await (one, two)
                // Each postback stored by exactly one of the two, reported at its own position in each batch.
                let dedupIDs = batch.compactMap(Self.dedupID)
                var storedBy: [String: Int] = [:]
                for (id, outcome) in zip(dedupIDs, outcomes) where outcome == .stored { storedBy[id, default: 0] += 1 }
                for (entry, outcome) in zip(other, otherOutcomes) {
                    guard let id = Self.dedupID(entry) else {
                        #expect(outcome == .rejectionRecorded)
                        continue
                    }
                    #expect(outcome == .stored || outcome == .duplicate)
                    if outcome == .stored { storedBy[id, default: 0] += 1 }
                }
                #expect(storedBy.count == batch.count && storedBy.values.allSatisfy { $0 == 1 })
                total += batch.count
            }
            #expect(try await first.stats().postbacks == total)
            try await first.close()
            try await second.close()
        }
    }

    @Test("outcomes come back in the entries' order: a repeat inside the batch and a row already stored are duplicates",
          .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"))
    func outcomesInEntryOrder() async throws {
        let server = try #require(PostgresTestServer.shared)
        let store = try await PostgresPostbackStore.open(try PostgresStoreConfiguration(url: try server.makeDatabase()))
        try await StoreHost.running([store]) {
            let (z, a, m) = (TestPostbacks.verified(transactionID: "z"), TestPostbacks.verified(transactionID: "a"),
                             TestPostbacks.verified(transactionID: "m"))
            #expect(try await store.write([SQLitePostbackStoreTests.accepted(m)]) == [.stored])
            let entries = [z, a, z, m].map(SQLitePostbackStoreTests.accepted)
            #expect(try await store.write(entries) == [.stored, .stored, .duplicate, .duplicate])
            #expect(try await store.write([SQLitePostbackStoreTests.accepted(TestPostbacks.verified(transactionID: "y")),
                                           StatCounterTests.rejected("malformed"), entries[1]])
                    == [.stored, .rejectionRecorded, .duplicate])
            try await store.close()
        }
    }

    /// `attribution` stored under another dedup id.
    static func accepted(_ attribution: VerifiedAttribution, _ body: [UInt8], dedupID: String) -> StoreEntry {
        var fields = attribution.fields
        fields.dedupID = dedupID
        let relabelled = VerifiedAttribution(framework: attribution.framework, fields: fields, keyName: attribution.keyName,
                                             scheme: attribution.scheme, note: attribution.note, detail: attribution.detail)
        return .accepted(AcceptedPostback(attribution: relabelled, rawBody: body, receivedAt: SQLitePostbackStoreTests.receivedAt,
                                          endpoint: "/postbacks"))
    }

    static func dedupID(_ entry: StoreEntry) -> String? {
        guard case .accepted(let postback) = entry else { return nil }
        return postback.attribution.fields.dedupID
    }
}
