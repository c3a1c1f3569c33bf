import Foundation
import GRDB
import SKANCore
import SKANStore
import SKANStorePostgres
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// Conflicts are counted by the value that differed (`GET /stats`, `/metrics`), on every engine, and a store made
/// before those counters gets the conflicts it already kept counted once by its migration.
@Suite("Conflict counters", .temporaryFolder)
struct ConflictCounterTests {
    typealias Engine = StoreConformanceTests.Engine
    typealias R = RepeatConformanceTests

    @Test("a conflict counts under each value that differed; a retry of it counts nothing", arguments: Engine.allCases)
    func byField(_ engine: Engine) async throws {
        let store = try await engine.make()
        try await StoreHost.running([store]) {
            let (first, changed, _) = R.pair {
                $0.conversionValue = 42
                $0.countryCode = "FR"
            }
            let (other, coarse, _) = R.pair { $0.conversionValue = 7 }
            #expect(try await store.write([R.entry(first), R.entry(other)]) == [.stored, .stored])
            #expect(try await store.write([R.entry(changed), R.entry(coarse), R.entry(changed)]) == [.duplicate, .duplicate, .duplicate])
            let stats = try await store.stats()
            #expect(stats.conflicts == 2)
            #expect(stats.conflictsByField == ["conversion-value": 2, "country": 1])
            #expect(stats.json.contains(#""duplicates":3,"conflicts":2,"#
                                        + #""conflicts-by-field":{"coarse-value":0,"conversion-value":2,"country":1,"interaction":0}"#),
                    "\(stats.json)")
            try await store.close()
        }
    }

    @Test("the migration adds the first copy's address and counts the conflicts kept before by value",
          arguments: [Engine.sqliteFile] + (PostgresTestServer.isAvailable ? [Engine.postgres] : []))
    func upgrade(_ engine: Engine) async throws {
        let (first, changed, _) = R.pair { $0.coarseConversionValue = .low }
        let path = try SQLitePostbackStoreTests.temporaryPath()
        var url = ""
        func open() async throws -> any PostbackStore {
            if engine == .postgres { return try await Self.openPostgres(url) }
            return try await SQLitePostbackStore.open(path: path, durability: .normal)
        }
        if engine == .postgres { url = try #require(PostgresTestServer.shared).makeDatabase() }
        let store = try await open()
        try await StoreHost.running([store]) {
            _ = try await store.write([R.entry(first)])
            _ = try await store.write([R.entry(changed)])
            try await store.close()
        }
        // As the release before made it: no column, no counters by value, the migration not run.
        let undo = """
            ALTER TABLE \(RepeatTable.name) DROP COLUMN first_client_address;
            DELETE FROM \(engine == .postgres ? "stat_counters" : "counters") WHERE name LIKE 'conflicts:%';
            """
        if engine == .postgres {
            _ = try #require(PostgresTestServer.shared).psql(url, undo + " DELETE FROM skan_migrations WHERE id = '0011-integrity'")
        } else {
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(sql: undo + " DELETE FROM grdb_migrations WHERE identifier = '0014-integrity'")
            }
            try queue.close()
        }
        let upgraded = try await open()
        try await StoreHost.running([upgraded]) {
            #expect(try await upgraded.stats().conflictsByField == ["coarse-value": 1])
            #expect(try await upgraded.stats().conflicts == 1)
            // The table again has every described column: a new conflict is kept with it.
            let (again, relayed, _) = R.pair { $0.countryCode = "DE" }
            _ = try await upgraded.write([R.entry(again, clientAddress: "198.51.100.7"), R.entry(relayed, clientAddress: "203.0.113.9")])
            #expect(try await upgraded.stats().conflictsByField == ["coarse-value": 1, "country": 1])
            try await upgraded.close()
        }
    }

    static func openPostgres(_ url: String) async throws -> any PostbackStore {
        try await PostgresPostbackStore.open(try PostgresStoreConfiguration(url: url), capInterval: .seconds(3600))
    }
}
