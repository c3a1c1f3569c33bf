import Logging
import ServiceLifecycle
import SKANStore

/// A store's periodic job (``StoreJob``, PostgreSQL's refusal cap) as a worker of the process's service group: it
/// starts after the migrations and stops with the other workers, before the store closes.
struct StoreJobService: Service, CustomStringConvertible {
    let job: StoreJob
    let logger: Logger

    var description: String { job.name }

    func run() async {
        let (job, logger) = (job, logger)
        await cancelWhenGracefulShutdown {
            await job.run { job, error in
                logger.warning("\(job.name) failed; it runs again", metadata: ["reason": "\(error.reason)"])
            }
        }
    }
}
