import Logging
import PostgresNIO

/// A transaction run again when PostgreSQL chose it as a deadlock's victim.
///
/// Why: batches lock their rows in key order (``BatchRows``), which removes the deadlock two collectors given the
/// same postbacks met (issue 32: 7–9 batches in 20,000 answered 503). Other locks can still meet in a cycle (counter
/// and rollup rows, writes a later migration adds), and a victim is rolled back whole by the server, so running it
/// again is safe and turns a 503 into a stored batch. The caller's deadline (``PostgresPool/run(_:_:seconds:_:)``)
/// still bounds every attempt together.
enum DeadlockRetry {
    /// PostgreSQL's `deadlock_detected`.
    static let sqlState = "40P01"

    /// Runs `transaction`, again up to `attempts` times in all while it fails as a deadlock's victim; any other
    /// failure, or the last attempt's, is thrown as it came.
    static func run<Result>(attempts: Int = 3, logger: Logger,
                            _ transaction: () async throws -> Result) async throws -> Result {
        var attempt = 1
        while true {
            do {
                return try await transaction()
            } catch where attempt < attempts && isDeadlock(error) {
                logger.debug("a batch was a deadlock's victim and runs again", metadata: ["attempt": "\(attempt + 1)"])
                attempt += 1
            }
        }
    }

    /// Whether `error` (a statement's, or a transaction's whose statement or commit failed) is a deadlock.
    static func isDeadlock(_ error: any Error) -> Bool {
        if let transaction = error as? PostgresTransactionError {
            return [transaction.beginError, transaction.closureError, transaction.commitError]
                .contains { $0.map(isDeadlock) ?? false }
        }
        return (error as? PSQLError)?.serverInfo?[.sqlState] == sqlState
    }
}
