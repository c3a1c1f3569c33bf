import Foundation
import GRDB
import SKANStore

extension SQLitePostbackStore: ExpiringStore {
    /// Deletes the expired leading rows in one short write transaction. A deleted row is counted only in the rollups
    /// then, so the rows are folded first if the folder (``SQLiteRollupFolder``, the rollups' own file) has not reached
    /// them: outside the database's write lock, on the folder's connection. The newest row always stays: SQLite gives a
    /// new row the largest id plus one, and an empty table would start ids again below the rollups' watermarks.
    public func deletePostbacks(receivedBefore cutoff: Date, limit: Int) async throws(StoreError) -> Int {
        let cutoff = Timestamp.iso8601(cutoff)
        let range: (first: Int64, through: Int64)?
        do {
            range = try await database.read { db -> (first: Int64, through: Int64)? in
                guard let (first, last) = try Self.expiredRange(after: 0, before: cutoff, limit: limit, in: db) else { return nil }
                let newest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM \(PostbackTable.name)") ?? 0
                let through = min(last, newest - 1)
                return through >= first ? (first, through) : nil
            }
            guard let range else { return 0 }
            // Retention runs a step a minute at most: a blocking fold here waits for the folder's queue, not a write.
            if try folder.foldedThrough() < range.through { try folder.foldAll() }
        } catch {
            throw StoreError(.writeFailed, "cannot fold the rollups before deleting expired postbacks: \(error)")
        }
        guard let range else { return 0 }
        return try await retentionWrite("cannot delete expired postbacks") { db in
            try SQLiteOutbox.keepBodies(ofPostbacks: range.first, through: range.through, in: db)
            try db.execute(sql: "DELETE FROM \(PostbackTable.name) WHERE id BETWEEN ? AND ?", arguments: [range.first, range.through])
            return db.changesCount
        }
    }

    public func dropBodies(receivedBefore cutoff: Date, after: Int64, limit: Int) async throws(StoreError) -> BodyExpiry {
        let cutoff = Timestamp.iso8601(cutoff)
        return try await retentionWrite("cannot empty expired raw bodies") { db in
            guard let (first, last) = try Self.expiredRange(after: after, before: cutoff, limit: limit, in: db) else {
                return BodyExpiry(emptied: 0, through: after)
            }
            try SQLiteOutbox.keepBodies(ofPostbacks: first, through: last, in: db)
            // length() of a blob reads its size from the record header, not the body. The client address goes with
            // the body: both are what arrived, not what the postback says (StoreRetention's raw-body days).
            try db.execute(sql: """
                UPDATE \(PostbackTable.name) SET raw_body = x'', client_address = NULL
                WHERE id BETWEEN ? AND ? AND (length(raw_body) > 0 OR client_address IS NOT NULL)
                """, arguments: [first, last])
            return BodyExpiry(emptied: db.changesCount, through: last)
        }
    }

    /// The ids of the expired rows leading the `limit` after `after`, in id order: up to the first received at or
    /// after `cutoff`. A range read on the primary key; the arrival times are compared as text (``Timestamp``).
    private static func expiredRange(after: Int64, before cutoff: String, limit: Int, in db: Database) throws
        -> (first: Int64, last: Int64)? {
        let rows = try Row.fetchAll(db, sql: """
            SELECT id, received_at FROM \(PostbackTable.name) WHERE id > ? ORDER BY id LIMIT ?
            """, arguments: [after, limit])
        var range: (first: Int64, last: Int64)?
        for row in rows {
            let received: String = row[1]
            guard received < cutoff else { break }
            let id: Int64 = row[0]
            range = (range?.first ?? id, id)
        }
        return range
    }

    /// A write as ``write(_:)`` makes one: the files checked before and after, the error coded `write-failed`.
    private func retentionWrite<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T)
        async throws(StoreError) -> T {
        try checkFile()
        do {
            let result = try await database.write(body)
            try checkFile(after: true)
            return result
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.writeFailed, "\(what): \(error)")
        }
    }
}
