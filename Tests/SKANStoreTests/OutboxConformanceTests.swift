import Foundation
import SKANCore
import SKANStore
import SKANTestSupport
import Testing

/// Every engine's relay outbox (``Outbox``) behaves as the memory engine's: entries queued only with a stored
/// postback, claimed under a lease, settled, counted and revived alike.
@Suite("Outbox conformance", .temporaryFolder)
struct OutboxConformanceTests {
    typealias Engine = StoreConformanceTests.Engine
    typealias T = SQLitePostbackStoreTests

    /// Every engine: each keeps an outbox. PostgreSQL is among them when the test server is up (the store suite's
    /// ``StoreConformanceTests/postgresRuns()`` says why when it is not, and fails where it is required).
    static let engines = Engine.allCases

    static let t0 = T.receivedAt

    /// An accepted postback queued for `destinations`.
    static func accepted(_ destinations: [String], transactionID: String = UUID().uuidString.lowercased()) -> StoreEntry {
        let (verified, body) = TestPostbacks.verified(transactionID: transactionID)
        var accepted = AcceptedPostback(attribution: verified, rawBody: body, receivedAt: t0, endpoint: "/postbacks")
        accepted.outbox = destinations.map {
            OutboxItem(destination: $0, idempotencyKey: "\($0)-\(transactionID)", body: Array("{\"to\":\"\($0)\"}".utf8))
        }
        return .accepted(accepted)
    }

    static func outbox(_ store: any PostbackStore) throws -> any Outbox {
        try #require(store as? any Outbox, "\(type(of: store)) keeps no outbox")
    }

    @Test("queues an entry per destination with a stored postback, none with a duplicate or a refusal",
          arguments: engines)
    func queuedInTheWrite(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let outbox = try Self.outbox(store)
            let first = Self.accepted(["a", "b"], transactionID: "t-1")
            let outcomes = try await store.write([first, Self.accepted(["a", "b"], transactionID: "t-1"), T.rejected("malformed"),
                                                  Self.accepted([], transactionID: "t-2")])
            #expect(outcomes == [.stored, .duplicate, .rejectionRecorded, .stored])
            let depths = try await outbox.depths()
            #expect(depths == [OutboxDepth(destination: "a", pending: 1, dead: 0, oldest: Self.t0.truncatedToMilliseconds, lastError: nil),
                               OutboxDepth(destination: "b", pending: 1, dead: 0, oldest: Self.t0.truncatedToMilliseconds, lastError: nil)])
            let claimed = try await outbox.claim(destination: "a", limit: 10, now: Self.t0, leaseUntil: Self.t0 + 60)
            #expect(claimed.map(\.item) == [OutboxItem(destination: "a", idempotencyKey: "a-t-1", body: Array("{\"to\":\"a\"}".utf8))])
            #expect(claimed.first?.attempts == 0)
            try await store.close()
        }
    }

    @Test("a claimed entry is not handed out again until its lease ends", arguments: engines)
    func lease(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let outbox = try Self.outbox(store)
            _ = try await store.write((0 ..< 5).map { _ in Self.accepted(["a"]) })
            let first = try await outbox.claim(destination: "a", limit: 3, now: Self.t0, leaseUntil: Self.t0 + 60)
            let second = try await outbox.claim(destination: "a", limit: 10, now: Self.t0 + 1, leaseUntil: Self.t0 + 61)
            #expect(first.count == 3)
            #expect(second.count == 2)
            #expect(Set(first.map(\.id)).isDisjoint(with: second.map(\.id)))
            #expect(try await outbox.claim(destination: "a", limit: 10, now: Self.t0 + 59, leaseUntil: Self.t0 + 120).isEmpty)
            // The sender of the first batch died: its entries are due again once the lease ends.
            let again = try await outbox.claim(destination: "a", limit: 10, now: Self.t0 + 60, leaseUntil: Self.t0 + 120)
            #expect(Set(again.map(\.id)) == Set(first.map(\.id)))
            try await store.close()
        }
    }

    @Test("settles: sent leaves, retried waits and counts its attempt, dead is kept apart and revived",
          arguments: engines)
    func settle(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let outbox = try Self.outbox(store)
            _ = try await store.write((0 ..< 4).map { _ in Self.accepted(["a"]) })
            let claimed = try await outbox.claim(destination: "a", limit: 4, now: Self.t0, leaseUntil: Self.t0 + 60)
            try #require(claimed.count == 4)
            try await outbox.settle([.sent(id: claimed[0].id), .retry(id: claimed[1].id, at: Self.t0 + 10, error: "HTTP 503"),
                                     .dead(id: claimed[2].id, error: "HTTP 404"), .release(id: claimed[3].id, at: Self.t0)])
            var depths = try await outbox.depths()
            #expect(depths == [OutboxDepth(destination: "a", pending: 2, dead: 1, oldest: Self.t0.truncatedToMilliseconds,
                                           lastError: "HTTP 404")])
            let released = try await outbox.claim(destination: "a", limit: 4, now: Self.t0 + 1, leaseUntil: Self.t0 + 60)
            #expect(released.map(\.id) == [claimed[3].id])
            #expect(released.first?.attempts == 0)
            let retried = try await outbox.claim(destination: "a", limit: 4, now: Self.t0 + 10, leaseUntil: Self.t0 + 70)
            #expect(retried.map(\.id) == [claimed[1].id])
            #expect(retried.first?.attempts == 1)
            #expect(try await outbox.reviveDead(destination: "other", now: Self.t0 + 20) == 0)
            #expect(try await outbox.reviveDead(destination: nil, now: Self.t0 + 20) == 1)
            depths = try await outbox.depths()
            #expect(depths.first?.dead == 0)
            let revived = try await outbox.claim(destination: "a", limit: 4, now: Self.t0 + 20, leaseUntil: Self.t0 + 80)
            #expect(revived.map(\.id) == [claimed[2].id])
            #expect(revived.first?.attempts == 0)
            try await store.close()
        }
    }

    @Test("claimers at once never get one entry twice, and together get every due entry", arguments: engines)
    func concurrentClaims(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let outbox = try Self.outbox(store)
            _ = try await store.write((0 ..< 60).map { _ in Self.accepted(["a", "b"]) })
            // Eight claimers of "a" race, each claiming until nothing is due: what one holds, no other may get.
            let claims = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for _ in 0 ..< 8 {
                    group.addTask {
                        var mine: [Int64] = []
                        while true {
                            let batch = try await outbox.claim(destination: "a", limit: 3, now: Self.t0, leaseUntil: Self.t0 + 60)
                            if batch.isEmpty { return mine }
                            mine += batch.map(\.id)
                        }
                    }
                }
                return try await group.reduce(into: [[Int64]]()) { $0.append($1) }
            }
            let all = claims.flatMap { $0 }
            #expect(all.count == 60)
            #expect(Set(all).count == 60, "an entry was handed to two claimers")
            // The other destination's entries were not touched.
            #expect(try await outbox.claim(destination: "b", limit: 100, now: Self.t0, leaseUntil: Self.t0 + 60).count == 60)
            try await store.close()
        }
    }

    @Test("a retry is due at its time, not before, and each attempt is counted", arguments: engines)
    func retrySchedule(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let outbox = try Self.outbox(store)
            _ = try await store.write([Self.accepted(["a"])])
            var now = Self.t0
            for attempt in 0 ..< 3 {
                let claimed = try await outbox.claim(destination: "a", limit: 10, now: now, leaseUntil: now + 60)
                #expect(claimed.map(\.attempts) == [attempt])
                let entry = try #require(claimed.first)
                let due = now + 10 * (attempt + 1)
                try await outbox.settle([.retry(id: entry.id, at: due, error: "HTTP 503 #\(attempt)")])
                #expect(try await outbox.claim(destination: "a", limit: 10, now: due - 1, leaseUntil: due + 60).isEmpty)
                now = due
            }
            let depths = try await outbox.depths()
            #expect(depths == [OutboxDepth(destination: "a", pending: 1, dead: 0, oldest: Self.t0.truncatedToMilliseconds,
                                           lastError: "HTTP 503 #2")])
            let last = try await outbox.claim(destination: "a", limit: 10, now: now, leaseUntil: now + 60)
            #expect(last.map(\.attempts) == [3])
            try await outbox.settle([.sent(id: try #require(last.first).id)])
            #expect(try await outbox.depths().isEmpty)
            try await store.close()
        }
    }

    @Test("queues a replay outside the write path", arguments: engines)
    func enqueue(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let outbox = try Self.outbox(store)
            let item = OutboxItem(destination: "new", idempotencyKey: "k", body: [1, 2, 3])
            try await outbox.enqueue([item, item], now: Self.t0)
            let claimed = try await outbox.claim(destination: "new", limit: 10, now: Self.t0, leaseUntil: Self.t0 + 60)
            #expect(claimed.map(\.item) == [item, item])
            #expect(try await outbox.depths().map(\.pending) == [2])
            try await store.close()
        }
    }
}

extension Date {
    /// The date as the outbox keeps it: whole milliseconds.
    var truncatedToMilliseconds: Date { Date(outboxMilliseconds: outboxMilliseconds) }

    static func + (date: Date, seconds: Int) -> Date { date.addingTimeInterval(TimeInterval(seconds)) }
}
