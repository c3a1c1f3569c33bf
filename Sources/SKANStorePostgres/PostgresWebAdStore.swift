import Foundation
import Logging
import PostgresNIO
import SKANStore

/// Registered web ads in PostgreSQL (`web_ads`, migration 0004), so that every signer behind a load balancer
/// answers Safari for an ad any of them registered.
public final class PostgresWebAdStore: WebAdStore {
    /// Where the store is, without its password.
    public let location: String
    private let pool: PostgresPool

    /// A store on the database `configuration` names; call ``migrate()`` before use.
    public init(_ configuration: PostgresStoreConfiguration, logger: Logger = Logger(label: "skan.webads.postgres")) {
        location = configuration.redacted
        pool = PostgresPool(configuration, logger: logger)
    }

    public func migrate() async throws(StoreError) {
        try await PostgresSchema.migrate(pool, location: location)
    }

    public func register(_ ad: RegisteredWebAd) async throws(StoreError) {
        let logger = pool.logger
        let (key, domain, response, expires) = (RegisteredWebAd.key(ad.nonce), ad.sourceDomain, ad.response, Self.millis(ad.expiresAt))
        // In a transaction of its own: an INSERT in PostgreSQL's implicit transaction is answered before it commits
        // (at the Sync that follows), and a signer must not serve an ad whose registration a failed commit took back.
        try await pool.run(.writeFailed, "cannot register web ad \(key)") { client in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("""
                    INSERT INTO web_ads (nonce, source_domain, response, expires_at) VALUES (\(key), \(domain), \(response), \(expires))
                    """, logger: logger)
            }
        }
    }

    public func ad(nonce: UUID, at now: Date) async throws(StoreError) -> RegisteredWebAd? {
        let logger = pool.logger
        let (key, at) = (RegisteredWebAd.key(nonce), Self.millis(now))
        return try await pool.run(.readFailed, "cannot read web ad \(key)") { client in
            let rows = try await client.query("""
                SELECT source_domain, response, expires_at FROM web_ads WHERE nonce = \(key) AND expires_at > \(at)
                """, logger: logger)
            var found: RegisteredWebAd?
            for try await (domain, response, expires) in rows.decode((String, String, Int64).self) {
                found = RegisteredWebAd(nonce: nonce, sourceDomain: domain, response: response,
                                        expiresAt: Date(timeIntervalSince1970: Double(expires) / 1000))
            }
            return found
        }
    }

    public func removeExpired(at now: Date) async throws(StoreError) -> Int {
        let logger = pool.logger
        let at = Self.millis(now)
        return try await pool.run(.writeFailed, "cannot remove expired web ads") { client in
            let rows = try await client.query("WITH gone AS (DELETE FROM web_ads WHERE expires_at <= \(at) RETURNING 1) SELECT count(*)::bigint FROM gone",
                                              logger: logger)
            var count = 0
            for try await removed in rows.decode(Int.self) { count = removed }
            return count
        }
    }

    public func count() async throws(StoreError) -> Int {
        let logger = pool.logger
        return try await pool.run(.readFailed, "cannot count web ads") { client in
            let rows = try await client.query("SELECT count(*)::bigint FROM web_ads", logger: logger)
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            return count
        }
    }

    /// Runs the pool's connections and calls until the store closes: its host's to run (``HostedStore``).
    public func run() async {
        await pool.run()
    }

    public func close() async throws(StoreError) {
        await pool.close()
    }

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}
