import Foundation
import SKANCore
import SKANStore
import SKANStorePostgres
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// Retention (issue 38) on every engine: exactly the expired rows go, oldest first and in small steps; raw bodies
/// are emptied apart from their rows; report totals of the kept days do not move, and the rollups keep the expired
/// days.
@Suite("Retention conformance", .temporaryFolder)
struct RetentionConformanceTests {
    /// The first day's midnight; day `d`'s postbacks arrive from `base + d days`.
    static let base = Date(timeIntervalSince1970: 1_780_012_800)
    static let days = 10
    static let perDay = 4

    typealias Engine = StoreConformanceTests.Engine

    /// A postback of `day`, the `index`-th of that day.
    static func entry(day: Int, index: Int, transactionID: String? = nil) -> (id: String, entry: StoreEntry) {
        let id = transactionID ?? "d\(day)-\(index)-\(UUID().uuidString.lowercased())"
        let (verified, body) = TestPostbacks.verified(transactionID: id)
        let received = base.addingTimeInterval(Double(day) * 86_400 + Double(index) * 60)
        return (id, .accepted(AcceptedPostback(attribution: verified, rawBody: body, receivedAt: received, endpoint: "/postbacks")))
    }

    /// Writes `days` days of `perDay` postbacks, a batch per day, in arrival order; their ids by day.
    static func fill(_ store: any PostbackStore) async throws -> [[String]] {
        var ids: [[String]] = []
        for day in 0 ..< days {
            let made = (0 ..< perDay).map { entry(day: day, index: $0) }
            let outcomes = try await store.write(made.map(\.entry))
            #expect(outcomes == Array(repeating: .stored, count: perDay))
            ids.append(made.map(\.id))
        }
        return ids
    }

    /// The midnight that starts `day`: a cutoff that expires the days before it.
    static func midnight(_ day: Int) -> Date { base.addingTimeInterval(Double(day) * 86_400) }

    @Test("deletes exactly the postbacks received before the cutoff, in steps, and frees their dedup keys",
          arguments: Engine.allCases)
    func deletesExpired(_ engine: Engine) async throws {
        let (store, _) = try await engine.makeExpiring()
        try await StoreHost.running([store]) {
            let ids = try await Self.fill(store)
            var deleted = 0, steps = 0
            while true {
                let step = try await store.deletePostbacks(receivedBefore: Self.midnight(4), limit: 3)
                #expect(step <= 3)
                if step == 0 { break }
                deleted += step
                steps += 1
            }
            #expect(deleted == 4 * Self.perDay)
            #expect(steps >= deleted / 3)
            for (day, dayIDs) in ids.enumerated() {
                for id in dayIDs {
                    let rows = try await store.postbacks(transactionID: id)
                    #expect(rows.count == (day < 4 ? 0 : 1), "day \(day): \(id)")
                }
            }
            // What was accepted is still counted: the counters are of acceptances, not of rows held.
            #expect(try await store.stats().postbacks == Self.days * Self.perDay)
            // A deleted postback's key is free again, as a unique index's entry goes with its row.
            let again = Self.entry(day: 0, index: 0, transactionID: ids[0][0])
            #expect(try await store.write([again.entry]) == [.stored])
            let kept = Self.entry(day: 5, index: 0, transactionID: ids[5][0])
            #expect(try await store.write([kept.entry]) == [.duplicate])
            try await store.close()
        }
    }

    @Test("the client address goes with the raw body: emptied before the cutoff, kept after", arguments: Engine.allCases)
    func forgetsAddresses(_ engine: Engine) async throws {
        let (store, openReader) = try await engine.makeExpiring()
        guard let openReader else { return }  // SQLite in memory: no second connection to read it back
        try await StoreHost.running([store]) {
            let entries = (0 ..< 2).map { day -> StoreEntry in
                guard case .accepted(var accepted) = Self.entry(day: day, index: 0).entry else { fatalError() }
                accepted.clientAddress = "198.51.100.\(day + 1)"
                return .accepted(accepted)
            }
            #expect(try await store.write(entries) == [.stored, .stored])
            let step = try await store.dropBodies(receivedBefore: Self.midnight(1), after: 0, limit: 10)
            #expect(step.emptied == 1)
            let reader = try await openReader()
            let addresses = try await StoreHost.running([reader]) {
                var names: [String] = []
                var addresses: [String?] = []
                try await reader.export(.postbacks) { names = $0 } each: { row in
                    let index = try #require(names.firstIndex(of: PostbackTable.clientAddress.name))
                    if case .text(let bytes) = row.value(at: index) { addresses.append(String(decoding: bytes, as: UTF8.self)) }
                    else { addresses.append(nil) }
                }
                await reader.close()
                return addresses
            }
            #expect(addresses == [nil, "198.51.100.2"])
            try await store.close()
        }
    }

    @Test("empties the raw bodies received before the cutoff and keeps their rows; a second pass empties nothing",
          arguments: Engine.allCases)
    func emptiesBodies(_ engine: Engine) async throws {
        let (store, _) = try await engine.makeExpiring()
        try await StoreHost.running([store]) {
            let ids = try await Self.fill(store)
            var through: Int64 = 0, emptied = 0
            while true {
                let step = try await store.dropBodies(receivedBefore: Self.midnight(3), after: through, limit: 5)
                emptied += step.emptied
                guard step.through > through else { break }
                through = step.through
            }
            #expect(emptied == 3 * Self.perDay)
            let again = try await store.dropBodies(receivedBefore: Self.midnight(3), after: 0, limit: 1000)
            #expect(again.emptied == 0)
            for (day, dayIDs) in ids.enumerated() {
                for id in dayIDs {
                    let row = try #require(try await store.postbacks(transactionID: id).first)
                    #expect(row.rawBody.isEmpty == (day < 3), "day \(day)")
                    #expect(row.fields.dedupID == id)
                }
            }
            try await store.close()
        }
    }

    @Test("report totals of the kept days do not move; rollups keep the expired days", arguments: Engine.allCases)
    func reports(_ engine: Engine) async throws {
        let (store, openReader) = try await engine.makeExpiring()
        try await StoreHost.running([store]) {
            guard let openReader else { return }
            _ = try await Self.fill(store)
            let byDay = AggregateQuery(dimensions: [.day])
            var fromRows = byDay
            fromRows.allowsRollups = false
            func totals(_ query: AggregateQuery) async throws -> [String: Int] {
                let reader = try await openReader()
                return try await StoreHost.running([reader]) {
                    var totals: [String: Int] = [:]
                    try await reader.aggregate(query) { row in totals[row.keys[0] ?? "", default: 0] += row.postbacks }
                    await reader.close()
                    return totals
                }
            }
            let before = try await totals(byDay)
            #expect(before.count == Self.days && before.values.allSatisfy { $0 == Self.perDay })
            while try await store.deletePostbacks(receivedBefore: Self.midnight(6), limit: 7) > 0 {}
            let after = try await totals(byDay)
            let rows = try await totals(fromRows)
            let kept = before.keys.sorted().suffix(4)
            for day in kept {
                #expect(after[day] == before[day], "\(day)")
                #expect(rows[day] == before[day], "\(day)")
            }
            #expect(rows.count == 4, "the rows of the expired days are gone: \(rows)")
            if engine.keepsRollups {
                #expect(after == before, "the rollups still count the expired days")
            }
            try await store.close()
        }
    }

    @Test("while ingest goes on, exactly the expired rows and bodies go and every new postback stays",
          arguments: Engine.allCases)
    func whileIngesting(_ engine: Engine) async throws {
        let (store, _) = try await engine.makeExpiring()
        try await StoreHost.running([store]) {
            let ids = try await Self.fill(store)
            let fresh = try await withThrowingTaskGroup(of: [String].self) { tasks in
                tasks.addTask {
                    var written: [String] = []
                    for batch in 0 ..< 30 {
                        let made = (0 ..< 5).map { Self.entry(day: Self.days - 1, index: Self.perDay + batch * 5 + $0) }
                        let outcomes = try await store.write(made.map(\.entry))
                        #expect(outcomes == Array(repeating: .stored, count: 5))
                        written += made.map(\.id)
                        await Task.yield()
                    }
                    return written
                }
                tasks.addTask {
                    var through: Int64 = 0
                    for _ in 0 ..< 40 {
                        _ = try await store.deletePostbacks(receivedBefore: Self.midnight(5), limit: 2)
                        through = try await store.dropBodies(receivedBefore: Self.midnight(7), after: through, limit: 2).through
                        await Task.yield()
                    }
                    while try await store.deletePostbacks(receivedBefore: Self.midnight(5), limit: 2) > 0 {}
                    while true {
                        let step = try await store.dropBodies(receivedBefore: Self.midnight(7), after: through, limit: 2)
                        guard step.through > through else { break }
                        through = step.through
                    }
                    return []
                }
                return try await tasks.reduce([], +)
            }
            #expect(fresh.count == 150)
            for id in fresh {
                let rows = try await store.postbacks(transactionID: id)
                #expect(rows.count == 1 && rows.first?.rawBody.isEmpty == false, "\(id)")
            }
            for (day, dayIDs) in ids.enumerated() {
                for id in dayIDs {
                    let rows = try await store.postbacks(transactionID: id)
                    #expect(rows.count == (day < 5 ? 0 : 1), "day \(day)")
                    if day >= 5 { #expect(rows.first?.rawBody.isEmpty == (day < 7), "day \(day)") }
                }
            }
            try await store.close()
        }
    }
}

extension StoreConformanceTests.Engine {
    /// A new, migrated store that can expire rows, a way to open its read side (`nil` for SQLite in memory, which has
    /// none apart).
    func makeExpiring() async throws -> (store: any PostbackStore & ExpiringStore,
                                         reader: (@Sendable () async throws -> any PostbackReader)?) {
        switch self {
        case .sqliteFile:
            let path = try SQLitePostbackStoreTests.temporaryPath()
            let store = try await SQLitePostbackStore.open(path: path, durability: .normal)
            try await store.migrate()
            return (store, { try SQLitePostbackReader(path: path) })
        case .postgres:
            let server = try #require(PostgresTestServer.shared)
            let configuration = try PostgresStoreConfiguration(url: try server.makeDatabase())
            // Migrated by open; hosted by the test.
            let store = try await PostgresPostbackStore.open(configuration)
            return (store, { try await PostgresPostbackReader.open(configuration) })
        case .sqliteMemory, .memory:
            let made = try await make()
            try await made.migrate()
            let store = try #require(made as? any PostbackStore & ExpiringStore)
            guard let memory = made as? MemoryPostbackStore else { return (store, nil) }
            return (store, { @Sendable in MemoryPostbackReader(memory) })
        }
    }

    /// Whether reports answered from rollups keep counting the days whose rows were deleted.
    var keepsRollups: Bool { self != .memory }
}
