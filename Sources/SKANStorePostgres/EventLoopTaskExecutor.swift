import NIOCore

/// Runs Swift tasks on one SwiftNIO event loop: the task executor the PostgreSQL store's writer prefers.
///
/// Why: postgres-nio answers on the event loop of the connection, and a task on the shared concurrency pool resumes
/// on another thread, so every round trip of a commit woke a pool thread and then the loop again (two wake-ups on
/// cores already busy verifying postbacks). A writer that prefers the loop's executor resumes on the loop that read
/// the answer and sends its next query from there. Only non-blocking work belongs on it, which the PostgreSQL
/// store's writes are.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
