import Foundation
import Logging
import PostgresNIO
import SKANCore
import SKANStore
import Synchronization

/// A ``PostbackStore`` on PostgreSQL, for several collectors writing to one database.
///
/// Each collector's ``GroupCommitWriter`` commits its batch in one transaction; the unique key and
/// `ON CONFLICT DO NOTHING` decide in the database which of two collectors stored a postback first. Counters are
/// per-collector rows summed on read, and the refusal cap runs as a periodic job (``jobs``, run by the store's host),
/// so no row is shared by every writer's commit. While PostgreSQL is down, calls fail within seconds with ``StoreError`` (the collector
/// answers 503) and the pool reconnects by itself when the server is back.
public final class PostgresPostbackStore: PostbackStore {
    /// Where the store is, without its password.
    public let location: String
    let pool: PostgresPool
    let cap: RejectionCap
    /// This store's counter rows: unique per process, so two collectors never update one row.
    let collectorName: String
    /// Whether refusals were written since the cap's job last ran.
    let refusalsPending = Mutex(false)
    /// How often the refusal cap's job runs (``jobs``).
    let capInterval: Duration

    /// Makes a store on the database `configuration` names, without touching its schema: run ``migrate()``
    /// before the first write (the collector runs it before its server starts), or use ``open(_:rejectionCap:capInterval:logger:)``.
    ///
    /// The refusal cap runs every `capInterval` while refusals are being written, as a job its host runs (``jobs``).
    public init(_ configuration: PostgresStoreConfiguration, rejectionCap: RejectionCap = RejectionCap(),
                capInterval: Duration = .seconds(5), logger: Logger = Logger(label: "skan.store.postgres")) {
        location = configuration.redacted
        pool = PostgresPool(configuration, logger: logger)
        cap = rejectionCap
        collectorName = "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)/"
            + UUID().uuidString.prefix(8).lowercased()
        self.capInterval = capInterval
    }

    /// Makes a store and brings its schema up to date: what a command that writes at once needs. The migrations run
    /// on a pool of their own, hosted here; the store's pool waits for the store's host (``run()``).
    public static func open(_ configuration: PostgresStoreConfiguration, rejectionCap: RejectionCap = RejectionCap(),
                            capInterval: Duration = .seconds(5),
                            logger: Logger = Logger(label: "skan.store.postgres")) async throws(StoreError) -> PostgresPostbackStore {
        let location = configuration.redacted
        try await PostgresPool.hosted(configuration, logger: logger) { pool throws(StoreError) in
            try await PostgresSchema.migrate(pool, location: location)
        }
        return PostgresPostbackStore(configuration, rejectionCap: rejectionCap, capInterval: capInterval, logger: logger)
    }

    /// Runs the migrations the database has not recorded, in one transaction holding an advisory lock.
    public func migrate() async throws(StoreError) {
        try await PostgresSchema.migrate(pool, location: location)
    }

    /// The migrations the database has recorded, in order.
    public func appliedMigrations() async throws(StoreError) -> [String] {
        let logger = pool.logger
        return try await pool.run(.readFailed, "cannot read the migrations") { client in
            var ids: [String] = []
            for try await id in try await client.query("SELECT id FROM skan_migrations ORDER BY id", logger: logger).decode(String.self) {
                ids.append(id)
            }
            return ids
        }
    }

    public func postbacks(transactionID: String) async throws(StoreError) -> [StoredPostback] {
        let logger = pool.logger
        return try await pool.run(.readFailed, "cannot read postbacks") { client in
            let rows = try await client.query(
                "SELECT * FROM postbacks WHERE transaction_id = \(transactionID) ORDER BY id", logger: logger)
            var stored: [StoredPostback] = []
            for try await row in rows {
                let cells = row.makeRandomAccess()
                stored.append(StoredPostback { column in PostgresCells.value(cells[column.name], kind: column.kind) })
            }
            return stored
        }
    }

    /// Sums every collector's counter rows: a few rows per collector, however large the tables are.
    public func stats() async throws(StoreError) -> StoreStats {
        try await pool.stats()
    }

    /// `nil` when PostgreSQL answers a query within two seconds.
    public func health() async -> StoreError? {
        let logger = pool.logger
        do {
            try await pool.run(.readFailed, "PostgreSQL at \(location) is unavailable", seconds: 2) { client in
                try await client.query("SELECT 1", logger: logger)
            }
            return nil
        } catch {
            return error
        }
    }

    /// The pool's event loop, where postgres-nio answers: the writer runs there and saves a thread hop per round trip.
    public var writerExecutor: (any TaskExecutor)? { pool.executor }

    /// Runs the pool's connections and calls until the store closes: its host's to run (``HostedStore``).
    public func run() async {
        await pool.run()
    }

    /// Folds this collector's counter rows into the shared row (`collector` empty), and closes
    /// the pool's connections; later calls fail with ``StoreErrorDomain`` `closed`.
    ///
    /// Each collector counts in rows of its own, named afresh at each start, so that the fleet's commits do not queue
    /// on one row; without the fold every restart would leave a set of rows behind. Only this collector writes its
    /// rows, so moving them is race-free; a collector that was killed leaves its rows, which still sum correctly.
    public func close() async throws(StoreError) {
        let (logger, collector) = (pool.logger, collectorName)
        do {
            try await pool.run(.writeFailed, "cannot fold the counters of \(collector)") { client in
                try await client.query("""
                    WITH mine AS (DELETE FROM stat_counters WHERE collector = \(collector) RETURNING name, value)
                    INSERT INTO stat_counters (collector, name, value) SELECT '', name, sum(value) FROM mine GROUP BY name
                    ON CONFLICT (collector, name) DO UPDATE SET value = stat_counters.value + excluded.value
                    """, logger: logger)
                try await client.query(Self.foldRollups(collector), logger: logger)
            }
        } catch {
            // The rows stay as they are and still sum to the right counts: a fold is tidiness, not correctness.
            logger.warning("cannot fold the counters on close", metadata: ["code": "\(error.code)"])
        }
        await pool.close()
    }

    /// Moves this collector's rollup rows onto the shared rows (collector `''`), as the counters are folded.
    static func foldRollups(_ collector: String) -> PostgresQuery {
        let folds = PostbackRollup.all.enumerated().map { index, rollup in
            let names = rollup.key().map(\.name).joined(separator: ", ")
            let counts = rollup.counts.joined(separator: ", ")
            return """
                mine\(index) AS (DELETE FROM \(rollup.name) WHERE collector = $1 RETURNING *),
                folded\(index) AS (
                    INSERT INTO \(rollup.name) (\(names), collector, \(counts))
                    SELECT \(names), '\(PostgresSchema.sharedCollector)', \(counts) FROM mine\(index)
                    ORDER BY \((1...rollup.key().count).map(String.init).joined(separator: ", "))
                    ON CONFLICT ON CONSTRAINT \(PostgresSchema.rollupKey(rollup))
                    DO UPDATE SET \(PostgresSchema.added(rollup)))
                """
        }
        var binds = PostgresBindings(capacity: 1)
        binds.append(collector)
        return PostgresQuery(unsafeSQL: "WITH " + folds.joined(separator: ",\n") + "\nSELECT 1", binds: binds)
    }
}

extension PostgresPostbackStore: PeriodicStoreWork {
    /// The refusal cap, every `capInterval`: a no-op unless refusals were written since its last step. Its host runs
    /// it (the collector's service group as a worker, `skan ingest` beside its writer), so it stops in the host's
    /// order, before the store closes; a step after the close does nothing.
    public var jobs: [StoreJob] {
        [StoreJob("the PostgreSQL refusal cap's job", every: capInterval) { [self] () async throws(StoreError) -> Void in
            guard !pool.isClosed else { return }
            try await enforceRejectionCap()
        }]
    }
}
