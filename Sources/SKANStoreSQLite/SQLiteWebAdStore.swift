import Foundation
import GRDB
import SKANStore

/// Registered web ads in the SQLite store (`web_ads`, migration 0005): the same file a collector may use, in WAL
/// mode, so a signer and a collector can share it.
public final class SQLiteWebAdStore: WebAdStore {
    private let database: DatabasePool
    private let path: String

    /// Opens (or creates) the database at `path`; call ``migrate()`` before use.
    public init(path: String) throws(StoreError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        self.path = path
        do {
            database = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StoreError(.cannotOpen, "cannot open the database \(path): \(error)")
        }
    }

    public func migrate() async throws(StoreError) { try migrateNow() }
    public func register(_ ad: RegisteredWebAd) async throws(StoreError) { try registerNow(ad) }
    public func ad(nonce: UUID, at now: Date) async throws(StoreError) -> RegisteredWebAd? { try adNow(nonce, now) }
    public func removeExpired(at now: Date) async throws(StoreError) -> Int { try removeNow(now) }
    public func count() async throws(StoreError) -> Int { try countNow() }

    public func close() async throws(StoreError) {
        do { try database.close() } catch { throw StoreError(.writeFailed, "cannot close the database: \(error)") }
    }

    private func migrateNow() throws(StoreError) {
        do { try SQLiteSchema.migrate(database, path: path) } catch {
            throw StoreError(.migrationFailed, "cannot bring the schema up to date: \(error)")
        }
    }

    private func registerNow(_ ad: RegisteredWebAd) throws(StoreError) {
        do {
            try database.write { db in
                try db.execute(sql: "INSERT INTO web_ads (nonce, source_domain, response, expires_at) VALUES (?, ?, ?, ?)",
                               arguments: [RegisteredWebAd.key(ad.nonce), ad.sourceDomain, ad.response, Self.millis(ad.expiresAt)])
            }
        } catch {
            throw StoreError(.writeFailed, "cannot register web ad \(RegisteredWebAd.key(ad.nonce)): \(error)")
        }
    }

    private func adNow(_ nonce: UUID, _ now: Date) throws(StoreError) -> RegisteredWebAd? {
        do {
            return try database.read { db in
                try Row.fetchOne(db, sql: "SELECT source_domain, response, expires_at FROM web_ads WHERE nonce = ? AND expires_at > ?",
                                 arguments: [RegisteredWebAd.key(nonce), Self.millis(now)]).map { row in
                    RegisteredWebAd(nonce: nonce, sourceDomain: row[0], response: row[1],
                                    expiresAt: Date(timeIntervalSince1970: Double(row[2] as Int64) / 1000))
                }
            }
        } catch {
            throw StoreError(.readFailed, "cannot read web ad \(RegisteredWebAd.key(nonce)): \(error)")
        }
    }

    private func removeNow(_ now: Date) throws(StoreError) -> Int {
        do {
            return try database.write { db in
                try db.execute(sql: "DELETE FROM web_ads WHERE expires_at <= ?", arguments: [Self.millis(now)])
                return db.changesCount
            }
        } catch {
            throw StoreError(.writeFailed, "cannot remove expired web ads: \(error)")
        }
    }

    private func countNow() throws(StoreError) -> Int {
        do {
            return try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM web_ads") ?? 0 }
        } catch {
            throw StoreError(.readFailed, "cannot count web ads: \(error)")
        }
    }

    /// Milliseconds since 1970, as the impressions' own timestamps.
    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}
