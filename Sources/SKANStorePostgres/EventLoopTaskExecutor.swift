import NIOCore
import Synchronization

/// Runs Swift tasks on one SwiftNIO event loop: the task executor the PostgreSQL store's writer prefers.
///
/// Why: postgres-nio answers on the event loop of the connection, and a task on the shared concurrency pool resumes
/// on another thread, so every round trip of a commit woke a pool thread and then the loop again (two wake-ups on
/// cores already busy verifying postbacks). A writer that prefers the loop's executor resumes on the loop that read
/// the answer and sends its next query from there. Only non-blocking work belongs on it, which the PostgreSQL
/// store's writes are.
///
/// Once ``close()`` has been called (before the loop shuts down), jobs go to the shared pool instead: a loop that
/// has shut down drops what it is given, and a writer or call still running after its store closed would then
/// never resume.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop
    private let isOpen = Mutex(true)

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        // Under the lock, so that no job reaches the loop once close() has returned.
        let queued = isOpen.withLock { isOpen in
            if isOpen { loop.execute { job.runSynchronously(on: executor) } }
            return isOpen
        }
        if !queued { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Sends every later job to the shared pool; the loop may shut down once this returns.
    func close() {
        isOpen.withLock { $0 = false }
    }
}
