import Foundation
import PostgresNIO
import SKANStore

extension PostgresPostbackStore: ExpiringStore {
    /// One statement: the leading rows by id, up to the first received at or after the cutoff, deleted. The rollups
    /// are kept in the insert's statement, so a deletion leaves them as they are. Several collectors may run it at
    /// once: a row another has just deleted is simply not there.
    public func deletePostbacks(receivedBefore cutoff: Date, limit: Int) async throws(StoreError) -> Int {
        let (cutoff, logger) = (Timestamp.iso8601(cutoff), pool.logger)
        return try await pool.run(.writeFailed, "cannot delete expired postbacks") { client in
            let rows = try await client.query("""
                WITH examined AS (SELECT id, received_at FROM postbacks ORDER BY id LIMIT \(limit)),
                     young AS (SELECT min(id) AS id FROM examined WHERE received_at >= \(cutoff)),
                     gone AS (DELETE FROM postbacks WHERE id IN (
                         SELECT id FROM examined WHERE id < COALESCE((SELECT id FROM young), 9223372036854775807))
                         RETURNING 1)
                SELECT count(*) FROM gone
                """, logger: logger)
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    public func dropBodies(receivedBefore cutoff: Date, after: Int64, limit: Int) async throws(StoreError) -> BodyExpiry {
        let (cutoff, logger) = (Timestamp.iso8601(cutoff), pool.logger)
        return try await pool.run(.writeFailed, "cannot empty expired raw bodies") { client in
            let rows = try await client.query("""
                WITH examined AS (SELECT id, received_at FROM postbacks WHERE id > \(after) ORDER BY id LIMIT \(limit)),
                     young AS (SELECT min(id) AS id FROM examined WHERE received_at >= \(cutoff)),
                     passed AS (SELECT id FROM examined WHERE id < COALESCE((SELECT id FROM young), 9223372036854775807)),
                     emptied AS (UPDATE postbacks SET raw_body = decode('', 'hex'), client_address = NULL
                         WHERE id IN (SELECT id FROM passed) AND (length(raw_body) > 0 OR client_address IS NOT NULL)
                         RETURNING 1)
                SELECT (SELECT count(*) FROM emptied), (SELECT max(id) FROM passed)
                """, logger: logger)
            for try await (emptied, through) in rows.decode((Int64, Int64?).self) {
                return BodyExpiry(emptied: Int(emptied), through: through ?? after)
            }
            return BodyExpiry(emptied: 0, through: after)
        }
    }
}
