import ServiceLifecycle
import SKANStore

/// Runs the ``GroupCommitWriter`` as a service: on graceful shutdown it stops taking postbacks and returns once
/// everything queued has committed.
///
/// Listed before the HTTP server in the service group, so that it shuts down after it: the server finishes its
/// in-flight requests first, and their postbacks still reach the database.
struct WriterService: Service {
    let writer: GroupCommitWriter

    func run() async throws {
        await withGracefulShutdownHandler {
            await writer.run()
        } onGracefulShutdown: {
            writer.finish()
        }
    }
}
