import SKANStore
@testable import SKANStorePostgres
import Synchronization
import Testing

/// The PostgreSQL pool's run loop and its calls run under the store's host (issue 31: no unstructured tasks in the
/// engines): nothing of the pool runs without one, and nothing outlives it. No server needed: the calls here never
/// reach one.
@Suite("PostgreSQL pool under its host", .timeLimit(.minutes(1)))
struct PostgresPoolHostingTests {
    static func store() -> PostgresPostbackStore {
        PostgresPostbackStore(PostgresStoreConfiguration(host: "127.0.0.1", port: 1, user: "postgres", password: nil,
                                                         database: "postgres"))
    }

    @Test("a call runs as a child of the host; without a host it runs nothing, and its deadline says so")
    func needsAHost() async throws {
        let store = Self.store()
        let ran = await #expect(throws: StoreError.self) {
            try await store.pool.run(.readFailed, "unhosted", seconds: 1) { _ in 1 }
        }
        #expect(ran?.code == .readFailed)
        #expect(ran?.reason == "unhosted: the PostgreSQL pool did not run within 1 s (its store has no host)", "\(ran?.reason ?? "")")
        try await StoreHost.running([store]) {
            let answer = try await store.pool.run(.readFailed, "hosted", seconds: 1) { _ in 42 }
            #expect(answer == 42)
            await store.pool.close()
        }
    }

    @Test("once its host stops, a pool answers every call with closed at once, not after a deadline")
    func hostStopped() async throws {
        let store = Self.store()
        try await StoreHost.running([store]) {
            let answered = try await store.pool.run(.readFailed, "hosted") { _ in true }
            #expect(answered)
        }
        let started = ContinuousClock.now
        let after = await #expect(throws: StoreError.self) { try await store.pool.run(.readFailed, "after", seconds: 30) { _ in true } }
        #expect(after?.code == .closed)
        #expect(ContinuousClock.now - started < .seconds(20), "answered by the 30 s deadline instead")
        await store.pool.close()
    }

    @Test("closing the pool ends its host's run loop: the host returns, and later calls fail with closed")
    func closeEndsHost() async throws {
        let store = Self.store()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            let answered = try await store.pool.run(.readFailed, "hosted") { _ in true }
            #expect(answered)
            await store.pool.close()
            // The host's task ends by itself: without the close, waiting for it here never returned.
            try await group.waitForAll()
        }
        let after = await #expect(throws: StoreError.self) { try await store.pool.run(.readFailed, "after") { _ in true } }
        #expect(after?.code == .closed)
        // A second host finds nothing to run.
        await store.run()
    }

    @Test("a deadline answers while the work does not end on cancellation, and the host's close waits for that work")
    func deadlineOverStuckWork() async throws {
        let store = Self.store()
        let gate = Gate()
        let finished = Mutex(false)
        try await StoreHost.running([store]) {
            let error = await #expect(throws: StoreError.self) {
                try await store.pool.run(.readFailed, "stuck", seconds: 1) { _ in
                    // Work that ignores its cancellation, as a lease connecting to a server that is down: it ends
                    // only when the test opens the gate, after the caller has had its answer.
                    await gate.wait()
                    finished.withLock { $0 = true }
                    return 0
                }
            }
            #expect(error?.reason == "stuck: no answer from PostgreSQL within 1 s", "\(error?.reason ?? "")")
            let early = finished.withLock { $0 }
            #expect(!early, "the caller was answered by the work, not the deadline")
            gate.open()
            await store.pool.close()
            // The stuck work was a child of the host, and the close waited for the host to end.
            let waited = finished.withLock { $0 }
            #expect(waited)
        }
    }
}

/// A wait that only ``open()`` ends, whatever cancellation says.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if now { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
