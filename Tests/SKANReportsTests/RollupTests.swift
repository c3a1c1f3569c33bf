import Foundation
import GRDB
import SKANCore
import SKANReports
import SKANStore
import SKANStoreSQLite
import SKANStorePostgres
import SKANTestSupport
import Testing

/// The per-day rollups (``PostbackRollup``) answer every query they cover with exactly the rows that reading every
/// postback gives, on each engine: after writes with repeats (which must not count), after refusals, after the
/// migration that counts a store's existing rows, and after writes on top of that.
@Suite("Per-day rollups", .temporaryFolder)
struct RollupTests {
    typealias Engine = RollupEngine

    /// Where a test's store is: a file, or a database on the test server.
    enum Location {
        case sqlite(String)
        case postgres(PostgresStoreConfiguration, url: String)

        static func make(_ engine: Engine) throws -> Location {
            switch engine {
            case .sqlite:
                return .sqlite(try TemporaryFolder.current.path("rollup-\(UUID().uuidString).sqlite"))
            case .postgres:
                let url = try #require(PostgresTestServer.shared).makeDatabase()
                return .postgres(try PostgresStoreConfiguration(url: url), url: url)
            }
        }

        func store(folding: RollupFolding = .default) async throws -> any PostbackStore {
            switch self {
            case .sqlite(let path): try await SQLitePostbackStore.open(path: path, durability: .normal, folding: folding)
            case .postgres(let configuration, _): try await PostgresPostbackStore.open(configuration, capInterval: .seconds(3600))
            }
        }

        func reader() async throws -> any PostbackReader {
            switch self {
            case .sqlite(let path): try SQLitePostbackReader(path: path)
            case .postgres(let configuration, _): try await PostgresPostbackReader.open(configuration)
            }
        }

        /// Takes the rollup away as if the store were made by the release before it, its rows kept.
        func dropRollups() throws {
            switch self {
            case .sqlite(let path):
                // The rollups live in their own file since migration 0013: the file goes, and the migrations that
                // made and moved them run again.
                let queue = try DatabaseQueue(path: path)
                try queue.write { db in
                    try db.execute(sql: """
                        DELETE FROM grdb_migrations WHERE identifier IN ('0006-rollups', '0007-campaign-days', '0008-rollups-folded',
                            '0013-rollups-own-file')
                        """)
                }
                try queue.close()
                for suffix in ["", "-wal", "-shm"] {
                    try? FileManager.default.removeItem(atPath: SQLitePostbackStore.rollupsPath(for: path) + suffix)
                }
            case .postgres(_, let url):
                _ = try #require(PostgresTestServer.shared).psql(url, """
                    \(PostbackRollup.all.map { "DROP TABLE \($0.name);" }.joined(separator: " ")) DELETE FROM skan_migrations WHERE id IN ('0005-rollups', '0006-campaign-days')
                    """)
            }
        }
    }

    /// Queries the dashboard makes (with and without its filters and date range) and every covered dimension alone.
    static let queries: [AggregateQuery] = {
        typealias Q = AggregateQuery
        var queries: [Q] = PostbackRollup.withCampaigns.dimensions.sorted { "\($0)" < "\($1)" }.map { Q(dimensions: [$0]) }
        let panels: [[Q.Dimension]] = [
            [], [.day, .network], [.day, .campaign], [.framework, .conversionType], [.framework, .interaction],
            [.conversionValue], [.window, .coarseValue], [.day], [.window, .tier], [.window, .didWin],
        ]
        queries += panels.map { Q(dimensions: $0) }
        queries += panels.map { Q(dimensions: $0, from: "2025-01-01", to: "2099-12-31", filters: [Q.Filter(.window, equals: "0")]) }
        queries += [
            Q(dimensions: [.day], splitsByValue: true),
            Q(dimensions: [.network, .window], filters: [Q.Filter(.didWin, equals: "false"), Q.Filter(.framework, equals: "skadnetwork")]),
            Q(dimensions: [], filters: [Q.Filter(.coarseValue, equals: nil)]),
            Q(dimensions: [.campaign], filters: [Q.Filter(.tier, equals: "4"), Q.Filter(.interaction, equals: "click")]),
            Q(dimensions: [.window], filters: [Q.Filter(.conversionValue, equals: nil)]),
            Q(dimensions: [], filters: [Q.Filter(.network, equals: "nobody")]),
        ]
        return queries
    }()

    /// Two campaigns' postbacks, SKAdNetwork 4.0 and 3.0, as the collector would store them.
    static func campaigns() throws -> (first: [StoreEntry], second: [StoreEntry]) {
        (try GoldenReportTests.simulatedEntries("skan-4.0-subscription", devices: 200).entries,
         try GoldenReportTests.simulatedEntries("skan-3.0-game", devices: 80).entries)
    }

    static func rows(_ reader: any PostbackReader, _ query: AggregateQuery, rollups: Bool) async throws -> [AggregateRow] {
        var query = query
        query.allowsRollups = rollups
        var rows: [AggregateRow] = []
        try await reader.aggregate(query) { rows.append($0) }
        // A value split keeps a group's rows together, in no particular order within it.
        return query.splitsByValue ? rows.sorted { "\($0)" < "\($1)" } : rows
    }

    /// The table a statement reads: the first word after a FROM that names a table rather than opening a subquery
    /// (SQLite reads a rollup beside the postbacks not yet folded into it).
    static func table(_ sql: String) -> String? {
        sql.components(separatedBy: "FROM ").dropFirst()
            .compactMap { $0.split(whereSeparator: { $0 == " " || $0 == "\n" }).first.map(String.init) }
            .first { !$0.hasPrefix("(") }
    }

    /// Every query of ``queries`` reads the rollup and gives the rows of the scan; returns the total.
    static func expectRollupsEqualScan(_ location: Location, _ comment: String) async throws -> Int {
        let reader = try await location.reader()
        return try await StoreHost.running([reader]) {
            // A view of one campaign, as the dashboard's campaign filter makes it, for each of the sample's first three.
            let campaigns = try await rows(reader, AggregateQuery(dimensions: [.campaign]), rollups: false).prefix(3).map(\.keys[0])
            let views = campaigns.flatMap { campaign in
                [[AggregateQuery.Dimension](), [.conversionValue], [.window, .tier], [.day, .network], [.day, .framework], [.day]].map {
                    AggregateQuery(dimensions: $0, filters: [AggregateQuery.Filter(.campaign, equals: campaign)])
                }
            }
            #expect(views.count == 18)
            for query in queries + views {
                // The smallest rollup that holds the query: the one without campaigns unless the query reads them, then
                // campaigns by day with their counts unless it also reads what decides the counts.
                let readsCampaigns = query.dimensions.contains(.campaign) || query.filters.contains { $0.dimension == .campaign }
                let used = Set(query.dimensions + query.filters.map(\.dimension))
                let smallest = !readsCampaigns ? PostbackRollup.withoutCampaigns
                    : used.isSubset(of: [.day, .campaign, .framework]) && !query.splitsByValue
                    ? PostbackRollup.campaignDays : PostbackRollup.withCampaigns
                #expect(Self.table(reader.statement(for: query).sql) == smallest.name, "\(query) reads \(smallest.name)")
                let scan = try await rows(reader, query, rollups: false)
                #expect(!scan.isEmpty)
                #expect(try await rows(reader, query, rollups: true) == scan, "\(comment): \(query.dimensions) \(query.filters)")
            }
            let total = try await rows(reader, AggregateQuery(dimensions: []), rollups: true).first?.postbacks ?? 0
            await reader.close()
            return total
        }
    }

    @Test("the rollup gives the scan's rows; repeats and refusals count nothing", arguments: Engine.allCases)
    func equalsScan(_ engine: Engine) async throws {
        let location = try Location.make(engine)
        let (first, second) = try Self.campaigns()
        let store = try await location.store()
        let outcomes = try await StoreHost.running([store]) {
            // A batch with repeats inside it, then one with repeats of the first batch, a refusal and new postbacks.
            let repeats = Array(first.prefix(40))
            var outcomes = try await store.write(first + repeats)
            let verifier = AttributionVerifier()
            let refusal = StoreEntry.rejected(RejectedPostback(verdict: verifier.verify(Array("{}".utf8)), rawBody: Array("{}".utf8),
                                                               receivedAt: Date(timeIntervalSince1970: 1_770_000_000), endpoint: "/postbacks"))
            outcomes += try await store.write(repeats + [refusal] + second)
            try await store.close()
            return outcomes
        }
        let stored = outcomes.filter { $0 == .stored }.count
        #expect(outcomes.filter { $0 == .duplicate }.count >= 80)
        #expect(stored + outcomes.filter { $0 == .duplicate }.count == first.count + second.count + 80)
        #expect(stored > 100)
        #expect(try await Self.expectRollupsEqualScan(location, "after writes") == stored)
    }

    @Test("on SQLite postbacks not yet folded into the rollups are counted from the table; a fold moves them in")
    func folds() async throws {
        let location = try Location.make(.sqlite)
        guard case .sqlite(let path) = location else { return }
        let (first, second) = try Self.campaigns()
        // Folds once 64 stored postbacks wait, so that batches of 50 leave some unfolded after every write.
        let store = try #require(try await location.store(folding: .everyBatch(after: 64)) as? SQLitePostbackStore)
        func folded() async throws -> (watermark: Int, rollup: Int, stored: Int) {
            try await Self.folded(path)
        }
        var stored = 0
        var sawUnfolded = false, sawFold = false
        for batch in (first + second).chunked(50).prefix(6) {
            stored += try await store.write(batch + Array(batch.prefix(5))).filter { $0 == .stored }.count
            await store.waitForFolds()
            let state = try await folded()
            #expect(state.stored == stored)
            // The rollup holds exactly the postbacks up to its watermark; once 64 wait, the folder folds them all.
            #expect(state.rollup == state.watermark, "rows are numbered from 1 and never deleted")
            #expect(stored - state.watermark < 64)
            sawUnfolded = sawUnfolded || state.watermark < stored
            sawFold = sawFold || state.watermark > 0
            #expect(try await Self.expectRollupsEqualScan(location, "with \(stored - state.watermark) unfolded") == stored)
        }
        #expect(sawUnfolded && sawFold)
        try await store.close()
        let closed = try await folded()
        #expect(closed.watermark == stored && closed.rollup == stored, "a clean close folds the rest")
    }

    /// The watermark and total of the rollup with campaigns (in the rollups file), and the rows of `postbacks`.
    static func folded(_ path: String) async throws -> (watermark: Int, rollup: Int, stored: Int) {
        let rollups = try DatabaseQueue(path: SQLitePostbackStore.rollupsPath(for: path))
        defer { try? rollups.close() }
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        let (watermark, rollup) = try await rollups.read { db in
            (try Int.fetchOne(db, sql: "SELECT folded_through FROM rollup_watermark WHERE rollup = '\(PostbackRollup.withCampaigns.name)'") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COALESCE(sum(postback_count), 0) FROM \(PostbackRollup.withCampaigns.name)") ?? -1)
        }
        return (watermark, rollup, try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM postbacks") ?? -1 })
    }

    @Test("on SQLite two stores writing one file fold each postback once")
    func twoWritersOneFile() async throws {
        let location = try Location.make(.sqlite)
        let (first, second) = try Self.campaigns()
        let a = try await location.store(folding: .everyBatch(after: 30)),
            b = try await location.store(folding: .everyBatch(after: 45))
        var stored = 0
        for (index, batch) in (first + second).chunked(40).enumerated() {
            stored += try await (index % 2 == 0 ? a : b).write(batch).filter { $0 == .stored }.count
        }
        #expect(try await Self.expectRollupsEqualScan(location, "two writers, open") == stored)
        try await a.close()
        try await b.close()
        #expect(try await Self.expectRollupsEqualScan(location, "two writers, closed") == stored)
    }

    @Test("the migration counts the rows stored before it, and later writes add to them", arguments: Engine.allCases)
    func backfill(_ engine: Engine) async throws {
        let location = try Location.make(engine)
        let (first, second) = try Self.campaigns()
        let earlier = try await location.store()
        try await StoreHost.running([earlier]) {
            _ = try await earlier.write(first)
            try await earlier.close()
        }
        try location.dropRollups()
        // Opening migrates again: SQLite's reader, or PostgreSQL's store.
        let store = try await location.store()
        try await StoreHost.running([store]) {
            if case .sqlite(let path) = location {
                // Migration 0008 marked every row folded and 0013 moved the counted rollups into their file: nothing
                // is left to fold from `postbacks`, and no fold has run yet (fewer than a step wait).
                let state = try await Self.folded(path)
                #expect(state.watermark == state.stored && state.rollup == state.stored, "\(state)")
            }
            let before = try await Self.expectRollupsEqualScan(location, "after the migration")
            #expect(before > 100)
            let stored = try await store.write(second + Array(first.prefix(10))).filter { $0 == .stored }.count
            try await store.close()
            #expect(try await Self.expectRollupsEqualScan(location, "after writes on the migrated rollup") == before + stored)
        }
    }

    @Test("two collectors writing at once, with postbacks in common, count each postback once")
    func collectors() async throws {
        guard PostgresTestServer.isAvailable else { return }
        let location = try Location.make(.postgres)
        let (first, second) = try Self.campaigns()
        let all = first + second
        let a = try await location.store(), b = try await location.store()
        try await StoreHost.running([a, b]) {
            // Each writes two thirds, in batches, the middle third by both.
            let third = all.count / 3
            async let left: Int = Self.write(Array(all[..<(2 * third)]), to: a)
            async let right: Int = Self.write(Array(all[third...]), to: b)
            let stored = try await left + right
            #expect(stored > 100)
            #expect(try await Self.expectRollupsEqualScan(location, "before the stores close") == stored)
            try await a.close()
            try await b.close()
            #expect(try await Self.expectRollupsEqualScan(location, "after their rows were folded") == stored)
        }
    }

    /// Writes `entries` in batches of 50 and returns how many were stored.
    static func write(_ entries: [StoreEntry], to store: any PostbackStore) async throws -> Int {
        var stored = 0
        for batch in entries.chunked(50) { stored += try await store.write(batch).filter { $0 == .stored }.count }
        return stored
    }

    /// SQLite's plan for `query` as the reader states it, over a fresh file's database and rollups.
    static func sqlitePlan(_ query: AggregateQuery) async throws -> [String] {
        let location = try Location.make(.sqlite)
        let store = try await location.store()
        try await store.close()
        guard case .sqlite(let path) = location else { return [] }
        let (sql, arguments) = SQLitePostbackReader.statement(for: query)
        let queue = try DatabaseQueue(path: path)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS rollups", arguments: [SQLitePostbackStore.rollupsPath(for: path)])
        }
        let plan = try await queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(arguments)).map { $0["detail"] as String }
        }
        try queue.close()
        return plan
    }

    @Test("on SQLite a view of one campaign finds its rollup rows by an index, not by reading every row")
    func campaignIndex() async throws {
        let plan = try await Self.sqlitePlan(AggregateQuery(dimensions: [.conversionValue],
                                                            filters: [AggregateQuery.Filter(.campaign, equals: "10")]))
        // Its key index, which leads with the campaign (SQLiteRollupFold.conflictTarget).
        #expect(plan.joined().contains("USING INDEX \(PostbackRollup.withCampaigns.name)_key"), "\(plan)")
    }

    @Test("on SQLite a view by campaign over a date range finds its rollup rows by the day index, not by reading every row")
    func dayIndex() async throws {
        // The overview of one network stacked by campaign over a week: its ranking of campaigns.
        let query = AggregateQuery(dimensions: [.campaign], from: "2026-03-08", to: "2026-03-14",
                                   filters: [AggregateQuery.Filter(.network, equals: "net3.skadnetwork")])
        #expect(PostbackRollup.choose(for: query)?.name == PostbackRollup.withCampaigns.name)
        let plan = try await Self.sqlitePlan(query)
        #expect(plan.joined().contains("USING INDEX \(PostbackRollup.withCampaigns.name)_day"), "\(plan)")
    }

    @Test("the measures read only the columns PostbackRollup.measuredColumns names, which a SQLite fold copies")
    func measuredColumns() {
        let conditions = PostbackRollup.measures().map(\.condition).joined(separator: " ")
        let read = PostbackTable.columns.map(\.name).filter { name in
            conditions.range(of: "\\b\(name)\\b", options: .regularExpression) != nil
        }
        #expect(!read.isEmpty)
        #expect(Set(read) == Set(PostbackRollup.measuredColumns.map(\.name)))
    }

    @Test("a query the rollup does not cover reads the postbacks")
    func uncovered() {
        typealias Q = AggregateQuery
        let uncovered = [
            Q(dimensions: [.day], day: .install), Q(dimensions: [], day: .install, from: "2026-01-01"),
            Q(dimensions: [.app]), Q(dimensions: [.version]), Q(dimensions: [.source]), Q(dimensions: [.country]),
            Q(dimensions: [.marketplace]), Q(dimensions: [.network], filters: [Q.Filter(.version, equals: "4.0")]),
        ]
        for query in uncovered {
            #expect(PostbackRollup.choose(for: query) == nil, "\(query)")
            #expect(Self.table(SQLitePostbackReader.statement(for: query).sql) == PostbackTable.name)
            #expect(Self.table(PostgresPostbackReader.statement(for: query).sql) == PostbackTable.name)
        }
        #expect(PostbackRollup.choose(for: Q(dimensions: [.network], day: .install)) != nil, "no day read: the basis does not matter")
    }
}

extension Array {
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
