import Foundation
import GRDB
import SKANCore
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// The numbered migrations are history; ``PostbackTable`` is the description that the insert, the decoding and
/// the export are made from. This holds the two together.
@Suite("SQLite schema", .temporaryFolder)
struct SQLiteSchemaTests {
    @Test("the migrated postbacks table has exactly the described columns, in order, with their types")
    func matchesDescription() async throws {
        let path = try SQLitePostbackStoreTests.temporaryPath()
        try await SQLitePostbackStore.open(path: path, durability: .normal).close()
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        let columns = try await queue.read { db in try db.columns(in: PostbackTable.name) }
        #expect(columns.map(\.name) == PostbackTable.exportColumns)
        for (column, described) in zip(columns.dropFirst(), PostbackTable.columns) {
            let type = switch described.kind {
            case .text: "TEXT"
            case .integer, .boolean: "INTEGER"
            case .blob: "BLOB"
            }
            #expect(column.type == type, "\(column.name)")
            #expect(column.isNotNull == !described.isNullable, "\(column.name)")
        }
        let unique = try await queue.read { db in
            try db.indexes(on: PostbackTable.name).filter(\.isUnique).map(\.columns)
        }
        #expect(unique == [PostbackTable.uniqueKey.map(\.name)])
    }
}
