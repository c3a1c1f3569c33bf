import Foundation
import GRDB
@testable import SKANStoreSQLite
import SKANStore
import Testing

@Suite("Row binding")
struct RowBindingTests {
    static func table() throws -> DatabaseQueue {
        let database = try DatabaseQueue()
        try database.write { db in
            try db.execute(sql: "CREATE TABLE t (a TEXT, b TEXT, c INTEGER, d BLOB, e BLOB, f TEXT NOT NULL, g INTEGER)")
        }
        return database
    }

    @Test("each value lands as bound: empty text and blob stay empty, nil is NULL, 64-bit integers whole")
    func valuesRoundTrip() throws {
        let database = try Self.table()
        let row = try database.write { db -> Row? in
            let statement = try db.cachedStatement(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)")
            var binding = RowBinding(capacity: 7)
            binding.text("")
            binding.text(nil)
            binding.integer(Int64.min)
            binding.blob([])
            binding.blob([0, 255, 7])
            binding.text("ünï \"q\" ✓")
            binding.bool(true)
            #expect(try binding.run(statement, in: db) == 1)
            return try Row.fetchOne(db, sql: "SELECT a, b, c, d, e, f, g, typeof(a), typeof(d) FROM t")
        }
        let stored = try #require(row)
        #expect(stored[0] as String? == "")
        #expect(stored[1] as String? == nil)
        #expect(stored[2] as Int64? == Int64.min)
        #expect(stored[3] as Data? == Data())
        #expect(stored[4] as Data? == Data([0, 255, 7]))
        #expect(stored[5] as String? == "ünï \"q\" ✓")
        #expect(stored[6] as Int? == 1)
        #expect(stored[7] as String? == "text")
        #expect(stored[8] as String? == "blob")
    }

    @Test("a failing step throws SQLite's error and leaves the statement ready for the next row")
    func failureThenReuse() throws {
        let database = try Self.table()
        let count = try database.write { db -> Int in
            let statement = try db.cachedStatement(sql: "INSERT INTO t (f, g) VALUES (?, ?)")
            var missing = RowBinding(capacity: 2)
            missing.text(nil)
            missing.integer(1 as Int?)
            #expect(throws: DatabaseError.self) { try missing.run(statement, in: db) }
            var good = RowBinding(capacity: 2)
            good.text("kept")
            good.integer(2 as Int?)
            #expect(try good.run(statement, in: db) == 1)
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM t WHERE f = 'kept' AND g = 2") ?? 0
        }
        #expect(count == 1)
    }
}
