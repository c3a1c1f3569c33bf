import Dispatch
import Logging
import NIOPosix
import PostgresNIO
import SKANStore
import Synchronization

/// A bounded ``PostgresClient`` whose run loop its host runs (``run()``), and the deadlines every call keeps.
///
/// The engine starts no task of its own (DESIGN.md §3): the run loop and every call's work are child tasks of
/// ``run()``, which a process's service group runs as a resource stopped after the store's close, and a command or a
/// test runs beside its work (``StoreHost/running(_:_:)``). Calls made before a host runs the pool wait for one,
/// within their deadline; once the pool is closed, or its host has stopped, calls fail with `closed`.
///
/// The connections run on an event loop of the pool's own. On the process's shared loops (postgres-nio's default)
/// they sat behind HTTP requests: a loop reads its ready sockets in turn, and a collector's loop had dozens of
/// postbacks to verify (about 0.1 ms each) before it read PostgreSQL's answer to a commit, so the writer, and
/// PostgreSQL with it, idled between commits.
final class PostgresPool: Sendable {
    let client: PostgresClient
    let logger: Logger
    private let loop: MultiThreadedEventLoopGroup
    /// The pool's event loop as a task executor: calls started there resume where postgres-nio answers them.
    let executor: EventLoopTaskExecutor
    /// The calls waiting for the host, in order; finished when the pool closes or its host stops.
    private let calls: AsyncStream<@Sendable (PostgresClient) async -> Void>
    private let submit: AsyncStream<@Sendable (PostgresClient) async -> Void>.Continuation
    private let closed = Mutex(false)
    private let hosting = Mutex(Hosting.waiting)

    /// Whether a host runs the pool.
    private enum Hosting {
        /// No host yet: calls wait for one.
        case waiting
        /// A host runs it; these close calls wait for it to end.
        case running([CheckedContinuation<Void, Never>])
        /// The host stopped, or the pool closed before any host ran it.
        case ended
    }

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
        self.client = PostgresClient(configuration: client, eventLoopGroup: loop, backgroundLogger: background)
        self.logger = logger
        self.loop = loop
        self.executor = EventLoopTaskExecutor(loop.next())
        (calls, submit) = AsyncStream.makeStream(of: (@Sendable (PostgresClient) async -> Void).self)
    }

    var isClosed: Bool { closed.withLock { $0 } }

    /// Runs the pool until it closes or this task is cancelled: postgres-nio's run loop, and each call's work as a
    /// child task. Returns at once when another host runs the pool or it is closed.
    ///
    /// Run by a service group, it must be a service of its own that stops after the store's close: postgres-nio's
    /// `run()` ends on its host's graceful shutdown, and a close may still query (a store folds its counters).
    func run() async {
        let starts = hosting.withLock { hosting in
            guard case .waiting = hosting, !isClosed else { return false }
            hosting = .running([])
            return true
        }
        guard starts else { return }
        let (client, calls) = (client, calls)
        // On the pool's own loop, which runs jobs in the order they came: the run loop is the group's first child,
        // and `run()` marks the client running before it first suspends, so no lease comes before it (postgres-nio
        // warned of a lease before `run()`). The children inherit the loop as their executor.
        await withTaskExecutorPreference(executor) {
            await withDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                for await call in calls { group.addTask { await call(client) } }
                // Closed (the calls finished) or cancelled: the calls in flight and the run loop end with the group.
                group.cancelAll()
            }
        }
        submit.finish()
        let waiting = hosting.withLock { hosting in
            defer { hosting = .ended }
            guard case .running(let waiting) = hosting else { return [CheckedContinuation<Void, Never>]() }
            return waiting
        }
        for closing in waiting { closing.resume() }
    }

    /// Ends the run loop: connections close, and every later call fails.
    func close() async {
        let wasClosed = closed.withLock { closed in
            defer { closed = true }
            return closed
        }
        guard !wasClosed else { return }
        // Ends the host's loop over the calls; a pool that no host ran ends here.
        submit.finish()
        await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
            let now = hosting.withLock { hosting in
                switch hosting {
                case .waiting, .ended:
                    hosting = .ended
                    return true
                case .running(let waiting):
                    hosting = .running(waiting + [ended])
                    return false
                }
            }
            if now { ended.resume() }
        }
        executor.close()
        try? await loop.shutdownGracefully()
    }

    /// A pool dropped without ``close()`` (a command that failed before it could close its store) still ends its
    /// event loop's thread; its host, if it had one, ended first.
    deinit {
        guard !isClosed else { return }
        submit.finish()
        executor.close()
        loop.shutdownGracefully(queue: .global()) { _ in }
    }

    /// Runs `body` with a pool of its own on `configuration`, hosted for as long as `body` runs and closed after it:
    /// for an open that must query before it hands its store to a host (a reader checks the schema).
    static func hosted<Result: Sendable>(_ configuration: PostgresStoreConfiguration, logger: Logger,
                                         _ body: (PostgresPool) async throws(StoreError) -> Result) async throws(StoreError) -> Result {
        let pool = PostgresPool(configuration, logger: logger)
        let outcome = await withDiscardingTaskGroup { group in
            group.addTask { await pool.run() }
            let outcome: Swift.Result<Result, StoreError>
            do throws(StoreError) {
                outcome = .success(try await body(pool))
            } catch {
                outcome = .failure(error)
            }
            // Ends the host above.
            await pool.close()
            return outcome
        }
        return try outcome.get()
    }

    /// Runs `body`, failing with `code` when the pool is closed, the body throws, or it takes longer than
    /// `seconds`: while PostgreSQL is down the pool would otherwise wait for a connection indefinitely, and a pool
    /// whose host has not started yet waits for it no longer either.
    ///
    /// The body runs as a child of the host's ``run()``; the deadline is a child of the caller's task. Not one task
    /// group of both: a group waits for its children, and a lease that is still connecting to a server that is down
    /// does not end at once when cancelled, so the deadline would not hold. The first of the work and the deadline
    /// answers the caller; a deadline cancels the work, which ends on its own under its host.
    @discardableResult
    func run<Result: Sendable>(_ code: StoreError.Code, _ what: String, seconds: Int = 5,
                               _ body: @escaping @Sendable (PostgresClient) async throws -> Result)
        async throws(StoreError) -> Result {
        guard !isClosed else { throw StoreError(.closed, "the PostgreSQL store is closed") }
        let call = PoolCall<Result>()
        let outcome: Swift.Result<Result, any Error> = await withTaskGroup(of: Void.self) { deadline in
            // On the shared pool, not the loop: the deadline holds whatever the loop is doing.
            deadline.addTask(executorPreference: globalConcurrentExecutor) { [self] in
                do { try await Task.sleep(for: .seconds(seconds)) } catch { return }
                let hosted = hosting.withLock { if case .waiting = $0 { false } else { true } }
                call.answer(.failure(PostgresTimeout(seconds: seconds, hosted: hosted)))
            }
            let outcome = await call.outcome { [submit] in
                let queued = submit.yield { client in await call.perform { try await body(client) } }
                if case .terminated = queued { call.answer(.failure(PostgresClosed())) }
            }
            deadline.cancelAll()
            return outcome
        }
        switch outcome {
        case .success(let value):
            return value
        case .failure(_ as PostgresClosed):
            throw StoreError(.closed, "\(what): the PostgreSQL store is closed, or its host stopped")
        case .failure(let error):
            throw StoreError(code, "\(what): \(Self.describe(error))")
        }
    }

    /// A PostgreSQL error in words: the server's message and code when it sent one. `PSQLError`'s own description
    /// hides everything (to keep queries out of logs); its server fields carry no values of ours.
    static func describe(_ error: any Error) -> String {
        if let timeout = error as? PostgresTimeout {
            // A pool no host runs is a program's mistake, not a server's: say which.
            return timeout.hosted ? "no answer from PostgreSQL within \(timeout.seconds) s"
                : "the PostgreSQL pool did not run within \(timeout.seconds) s (its store has no host)"
        }
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
    /// Whether a host had started the pool by then.
    let hosted: Bool
}

/// A call made after the pool closed or its host stopped.
struct PostgresClosed: Error {}

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
