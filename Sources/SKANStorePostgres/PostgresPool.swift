import Dispatch
import Logging
import NIOPosix
import PostgresNIO
import SKANStore
import Synchronization

/// A bounded ``PostgresClient`` that runs for as long as its owner keeps it, and the deadlines every call keeps.
///
/// The pool's run loop is owned here (started on creation, cancelled by ``close()``) rather than handed to a
/// service group, so that a store works the same in `skan ingest`, `skan report`, tests and the collector; the
/// collector still closes its store last through its `StoreService`.
///
/// The connections run on an event loop of the pool's own. On the process's shared loops (postgres-nio's default)
/// they sat behind HTTP requests: a loop reads its ready sockets in turn, and a collector's loop had dozens of
/// postbacks to verify (about 0.1 ms each) before it read PostgreSQL's answer to a commit, so the writer, and
/// PostgreSQL with it, idled between commits.
final class PostgresPool: Sendable {
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>
    private let loop: MultiThreadedEventLoopGroup
    /// The pool's event loop as a task executor: calls started there resume where postgres-nio answers them.
    let executor: EventLoopTaskExecutor
    private let closed = Mutex(false)
    /// Whether the run loop is known to have started.
    private let running = Mutex(false)

    init(_ configuration: PostgresStoreConfiguration, logger: Logger) {
        var client = PostgresClient.Configuration(host: configuration.host, port: configuration.port,
                                                  username: configuration.user, password: configuration.password,
                                                  database: configuration.database, tls: .disable)
        client.options.maximumConnections = configuration.maximumConnections
        // A server that is down must turn into a prompt 503, not a request that waits out a long connect.
        client.options.connectTimeout = .seconds(2)
        // postgres-nio logs every failed connection attempt at info: while the server is down that is a line per
        // retry, and the store's own errors already say it is unavailable.
        var background = logger
        background.logLevel = max(logger.logLevel, .warning)
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let made = PostgresClient(configuration: client, eventLoopGroup: loop, backgroundLogger: background)
        self.client = made
        self.logger = logger
        self.loop = loop
        let executor = EventLoopTaskExecutor(loop.next())
        self.executor = executor
        // On the pool's own loop, which runs jobs in the order they came: the first lease (``run(_:_:seconds:_:)``)
        // waits for a job queued after this one, and `run()` marks the client running before it first suspends.
        // Started anywhere else, a lease could come first and postgres-nio warned of a lease before `run()`.
        runner = Task(executorPreference: executor) { await made.run() }
    }

    /// Waits, the first time only, until the run loop has started (see ``init(_:logger:)``).
    private func untilRunning() async {
        guard !running.withLock({ $0 }) else { return }
        await Task(executorPreference: executor) {}.value
        running.withLock { $0 = true }
    }

    var isClosed: Bool { closed.withLock { $0 } }

    /// Ends the run loop: connections close, and every later call fails.
    func close() async {
        let wasClosed = closed.withLock { closed in
            defer { closed = true }
            return closed
        }
        guard !wasClosed else { return }
        runner.cancel()
        await runner.value
        executor.close()
        try? await loop.shutdownGracefully()
    }

    /// A pool dropped without ``close()`` (a command that failed before it could close its store) still ends its
    /// run loop and its event loop's thread.
    deinit {
        guard !isClosed else { return }
        runner.cancel()
        executor.close()
        loop.shutdownGracefully(queue: .global()) { _ in }
    }

    /// Runs `body`, failing with `code` when the pool is closed, the body throws, or it takes longer than
    /// `seconds`: while PostgreSQL is down the pool would otherwise wait for a connection indefinitely.
    @discardableResult
    func run<Result: Sendable>(_ code: StoreError.Code, _ what: String, seconds: Int = 5,
                               _ body: @escaping @Sendable (PostgresClient) async throws -> Result)
        async throws(StoreError) -> Result {
        guard !isClosed else { throw StoreError(.closed, "the PostgreSQL store is closed") }
        await untilRunning()
        let client = client
        let executor = executor
        // Not a task group: a group waits for its children, and a lease that is still connecting to a server that
        // is down does not end at once when cancelled, so the deadline would not hold. The first of the work and
        // the deadline answers; the other is cancelled and ends on its own.
        let outcome: Swift.Result<Result, any Error> = await withCheckedContinuation { continuation in
            let answer = Mutex<CheckedContinuation<Swift.Result<Result, any Error>, Never>?>(continuation)
            let reply: @Sendable (Swift.Result<Result, any Error>) -> Void = { result in
                answer.withLock { pending in
                    pending?.resume(returning: result)
                    pending = nil
                }
            }
            let running = Mutex<Task<Void, Never>?>(nil)
            // On the shared pool, not the loop: the deadline must hold even for a call that outlives the loop.
            let timer = Task {
                do { try await Task.sleep(for: .seconds(seconds)) } catch { return }
                running.withLock { $0?.cancel() }
                reply(.failure(PostgresTimeout(seconds: seconds)))
            }
            // On the pool's loop (an unstructured task does not inherit its caller's executor preference).
            let work = Task(executorPreference: executor) {
                defer { timer.cancel() }
                do { reply(.success(try await body(client))) } catch { reply(.failure(error)) }
            }
            running.withLock { $0 = work }
        }
        switch outcome {
        case .success(let value):
            return value
        case .failure(let error):
            throw StoreError(code, "\(what): \(Self.describe(error))")
        }
    }

    /// A PostgreSQL error in words: the server's message and code when it sent one. `PSQLError`'s own description
    /// hides everything (to keep queries out of logs); its server fields carry no values of ours.
    static func describe(_ error: any Error) -> String {
        if let timeout = error as? PostgresTimeout { return "no answer from PostgreSQL within \(timeout.seconds) s" }
        if let transaction = error as? PostgresTransactionError {
            // The first failure says why; a rollback's own failure follows it.
            let failures = [("BEGIN", transaction.beginError), ("", transaction.closureError), ("COMMIT", transaction.commitError),
                            ("ROLLBACK", transaction.rollbackError)].compactMap { step, error in error.map { (step, $0) } }
            return failures.map { step, error in (step.isEmpty ? "" : "at \(step), ") + describe(error) }.joined(separator: "; ")
        }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return "PostgreSQL: \(message) (\(error.serverInfo?[.sqlState] ?? "?"))"
        }
        if let underlying = error.underlying { return "PostgreSQL unreachable: \(underlying)" }
        return "PostgreSQL: \(error.code)"
    }
}

/// A call that outlived its deadline.
struct PostgresTimeout: Error {
    let seconds: Int
}

extension PostgresPool {
    /// The counters summed over every collector's rows (each collector counts in rows of its own), as stats.
    func stats() async throws(StoreError) -> StoreStats {
        let logger = logger
        return try await run(.readFailed, "cannot count postbacks") { client in
            var counters: [(name: String, value: Int)] = []
            let rows = try await client.query("SELECT name, sum(value)::bigint FROM stat_counters GROUP BY name", logger: logger)
            for try await (name, value) in rows.decode((String, Int).self) { counters.append((name, value)) }
            return StoreStats(counters: counters)
        }
    }
}
