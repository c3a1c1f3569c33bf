import Foundation
import Logging
import SKANCollector
import SKANCore
import SKANTestSupport
import SKANStore
import SKANStoreSQLite
import Testing

/// `skan ingest`'s path: records (bare postbacks and the simulator's envelopes) through the pipeline into a store.
@Suite("Ingest")
struct IngestTests {
    static let loadedAt = Date(timeIntervalSince1970: 1_790_000_000)

    /// An envelope as `skan simulate` writes it: the send time as text and as milliseconds, beside the postback.
    static func envelope(_ postback: Postback, sendAtMilliseconds: Int64, text: String) -> [UInt8] {
        Array(#"{"send-at":"\#(text)","send-at-ms":\#(sendAtMilliseconds),"destination":"https://example.com/postbacks","recipient":"ad-network","postback":\#(postback.json)}"#.utf8)
    }

    static func receivedAt(_ store: SQLitePostbackStore, _ postback: Postback) async throws -> [String] {
        try await store.postbacks(transactionID: postback.transactionID).map(\.receivedAt)
    }

    static func withPipeline(_ test: (PostbackPipeline, SQLitePostbackStore) async throws -> Void) async throws {
        let store = try SQLitePostbackStore(inMemoryWith: RejectionCap())
        let writer = GroupCommitWriter(store: store)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let pipeline = PostbackPipeline(verifier: TestPostbacks.verifier, writer: writer, logger: logger,
                                        now: { loadedAt })
        async let running: Void = writer.run()
        try await test(pipeline, store)
        writer.finish()
        await running
    }

    @Test("stores an envelope's send time as received_at, counts accepted, then duplicates on re-ingest")
    func sendAtAndDuplicates() async throws {
        try await Self.withPipeline { pipeline, store throws in
            let first = TestPostbacks.postback(), second = TestPostbacks.postback(), bare = TestPostbacks.postback()
            let records = [
                Self.envelope(first, sendAtMilliseconds: 1_780_012_345_678, text: "2026-05-28T23:52:25.678Z"),
                Self.envelope(second, sendAtMilliseconds: 1_780_099_200_001, text: "2026-05-30T00:00:00.001Z"),
                Array(bare.json.utf8),
                Array(#"{"version":"4.0"}"#.utf8),
            ]
            let once = await pipeline.ingest(records, endpoint: "ingest")
            #expect(once.map(\.reply.outcome) == [.accepted, .accepted, .accepted, .malformed])
            let again = await pipeline.ingest(records, endpoint: "ingest")
            #expect(again.map(\.reply.outcome) == [.duplicate, .duplicate, .duplicate, .malformed])
            let stats = try await store.stats()
            #expect(stats.postbacks == 3)

            #expect(try await Self.receivedAt(store, first)
                == ["2026-05-28T23:52:25.678Z"])
            #expect(try await Self.receivedAt(store, second)
                == ["2026-05-30T00:00:00.001Z"])
            // A bare postback has no send time: it was received when it was loaded.
            #expect(try await Self.receivedAt(store, bare)
                == ["2026-09-21T14:13:20.000Z"])
        }
    }

    @Test("takes the send-at text when an envelope has no send-at-ms")
    func sendAtText() async throws {
        try await Self.withPipeline { pipeline, store throws in
            let postback = TestPostbacks.postback()
            let record = #"{"send-at":"2026-03-02T14:05:09.123Z","postback":\#(postback.json)}"#
            #expect(await pipeline.ingest([Array(record.utf8)], endpoint: "ingest").map(\.reply.outcome) == [.accepted])
            #expect(try await Self.receivedAt(store, postback)
                == ["2026-03-02T14:05:09.123Z"])
        }
    }

    @Test("--received-at now ignores the envelope's send time")
    func receivedNow() async throws {
        try await Self.withPipeline { pipeline, store throws in
            let postback = TestPostbacks.postback()
            let record = Self.envelope(postback, sendAtMilliseconds: 1_780_012_345_678, text: "2026-05-28T23:52:25.678Z")
            let results = await pipeline.ingest([record], endpoint: "ingest", receivedAt: .now)
            #expect(results.map(\.reply.outcome) == [.accepted])
            #expect(try await Self.receivedAt(store, postback)
                == ["2026-09-21T14:13:20.000Z"])
        }
    }
}

@Suite("Store failures")
struct StoreFailureTests {
    @Test("a postback the store cannot keep is answered 503, one at a time and in an ingest batch; a refusal stays 400")
    func unavailable() async throws {
        let writer = GroupCommitWriter(store: try SQLitePostbackStore(inMemoryWith: RejectionCap()))
        writer.finish()  // every submission now fails with the writer's closed error
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let pipeline = PostbackPipeline(verifier: TestPostbacks.verifier, writer: writer, logger: logger)
        let valid = Array(TestPostbacks.postback().json.utf8)
        let one = await pipeline.receive(valid, endpoint: "/postbacks")
        #expect(one.reply.outcome == .unavailable)
        #expect(one.reply.statusCode == 503)
        let batch = await pipeline.ingest([Array(TestPostbacks.postback().json.utf8), Array(#"{"version":"4.0"}"#.utf8)],
                                          endpoint: "/postbacks")
        #expect(batch.map(\.reply.statusCode) == [503, 400])
    }
}
