import Foundation
import GRDB
import SKANReports
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// A table named `postbacks` in someone else's database is not the collector's.
@Suite("Reports open only collector databases", .temporaryFolder)
struct ForeignDatabaseTests {
    @Test("a database whose postbacks table the collector did not make is refused, for reports and exports alike")
    func foreignTableRefused() throws {
        let path = try TemporaryFolder.current.path("foreign-\(UUID().uuidString).sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE postbacks (id INTEGER PRIMARY KEY, foo TEXT); INSERT INTO postbacks (foo) VALUES ('bar')")
        }
        try queue.close()
        do {
            _ = try SQLitePostbackReader(path: path)
            Issue.record("a foreign postbacks table was opened as the collector's")
        } catch {
            #expect(error.code == .notCollectorDatabase)
            #expect(error.reason.contains(path) && error.reason.contains("not a SKANKit collector database"))
        }
    }

    @Test("the collector's own database opens, empty or not")
    func collectorDatabaseOpens() async throws {
        let path = try TemporaryFolder.current.path("own-\(UUID().uuidString).sqlite")
        let store = try await SQLitePostbackStore.open(path: path, durability: .normal)
        try await store.close()
        let report = try await ReportBuilder.run(try ReportRequest(fields: []), on: try SQLitePostbackReader(path: path))
        #expect(report.rows.map(\.postbacks) == [0])
    }
}
