@testable import SKANStorePostgres
import SKANStore
import Testing

@Suite("PostgreSQL store's writer executor")
struct EventLoopTaskExecutorTests {
    /// Async work that is not isolated to anything: it runs where the task's executor preference says.
    nonisolated func onLoop(_ executor: EventLoopTaskExecutor) async -> Bool {
        await Task.yield()
        return executor.loop.inEventLoop
    }

    @Test("a store's writes prefer its pool's event loop, where postgres-nio answers; suspended work resumes there")
    func runsOnTheLoop() async throws {
        // No server needed: the pool connects on its first call.
        let store = PostgresPostbackStore(PostgresStoreConfiguration(host: "127.0.0.1", port: 1, user: "postgres",
                                                                    password: nil, database: "postgres"))
        try await StoreHost.running([store]) {
            let executor = try #require(store.writerExecutor as? EventLoopTaskExecutor)
            #expect(executor === store.pool.executor)
            #expect(await onLoop(executor) == false)
            let placed = await withTaskExecutorPreference(executor) { await onLoop(executor) }
            #expect(placed)
            // Each call of the pool runs there too, as a child of its host, which runs on the loop.
            let onTheLoop = try await store.pool.run(.readFailed, "where") { _ in executor.loop.inEventLoop }
            #expect(onTheLoop)
            // The pool alone: the store's close would first try to fold its counters on a server that is not there.
            await store.pool.close()
        }
    }

    @Test("work sent to a closed pool's executor still runs, on the shared pool: a loop that has shut down drops jobs",
          .timeLimit(.minutes(1)))
    func afterClose() async throws {
        let store = PostgresPostbackStore(PostgresStoreConfiguration(host: "127.0.0.1", port: 1, user: "postgres",
                                                                    password: nil, database: "postgres"))
        let executor = store.pool.executor
        await store.pool.close()
        let placed = await withTaskExecutorPreference(executor) { await onLoop(executor) }
        #expect(placed == false)
    }
}
