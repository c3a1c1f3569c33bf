import CoreMetrics
import Foundation
import Logging
import Prometheus
import ServiceLifecycle
import SKANStore

/// Deletes what ``Retention`` says has expired, a worker of the collector's service group: off the request path, in
/// steps of ``Retention/batch`` rows, each its own short transaction behind the writer's, then waits
/// ``Retention/interval``. Time and the wait are injected, so tests run passes at moments they choose.
///
/// A failed step is logged (with its code, never a row) and tried again at the next pass: retention that falls behind
/// costs disk, never an acknowledged postback inside the window.
public struct RetentionService: Service, CustomStringConvertible {
    let retention: Retention
    let store: any ExpiringStore
    let now: @Sendable () -> Date
    let sleep: @Sendable (Duration) async throws -> Void
    let logger: Logger
    let deleted: CoreMetrics.Counter
    let emptied: CoreMetrics.Counter

    public var description: String { "retention" }

    /// A service deleting from `store` by `retention`, counting in `registry` (`skan_retention_postbacks_deleted_total`,
    /// `skan_retention_bodies_emptied_total`).
    public init(retention: Retention, store: any ExpiringStore, registry: PrometheusCollectorRegistry, logger: Logger,
                now: @escaping @Sendable () -> Date = Date.init,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.retention = retention
        self.store = store
        self.now = now
        self.sleep = sleep
        self.logger = logger
        let factory = PrometheusMetricsFactory(registry: registry)
        deleted = CoreMetrics.Counter(label: "skan_retention_postbacks_deleted_total", factory: factory)
        emptied = CoreMetrics.Counter(label: "skan_retention_bodies_emptied_total", factory: factory)
    }

    public func run() async throws {
        var pass = Pass()
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                let done = try await sweep(&pass)
                if done.deleted + done.emptied > 0 {
                    logger.info("retention", metadata: ["postbacks-deleted": "\(done.deleted)",
                                                        "bodies-emptied": "\(done.emptied)"])
                }
            } catch {
                logger.warning("retention step failed; trying again later", metadata: ["code": "\(error.code)"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await sleep(retention.interval) }
            } catch {
                return
            }
        }
    }

    /// Where the passes are: the last id whose body is known to be emptied, so that a pass starts after it.
    public struct Pass: Sendable {
        var bodiesThrough: Int64 = 0
        /// A first pass.
        public init() {}
    }

    /// One pass at the injected time: steps until nothing more has expired (or the group shuts down); returns what
    /// it deleted and emptied.
    public func sweep(_ pass: inout Pass) async throws(StoreError) -> (deleted: Int, emptied: Int) {
        let moment = now()
        var total = (deleted: 0, emptied: 0)
        // Rows first: a body about to go with its row is not emptied first.
        if let cutoff = retention.postbackCutoff(now: moment) {
            while !Task.isShuttingDownGracefully {
                let step = try await store.deletePostbacks(receivedBefore: cutoff, limit: retention.batch)
                total.deleted += step
                deleted.increment(by: step)
                guard step > 0 else { break }
                await Task.yield()
            }
        }
        if let cutoff = retention.bodyCutoff(now: moment) {
            while !Task.isShuttingDownGracefully {
                let step = try await store.dropBodies(receivedBefore: cutoff, after: pass.bodiesThrough, limit: retention.batch)
                total.emptied += step.emptied
                emptied.increment(by: step.emptied)
                guard step.through > pass.bodiesThrough else { break }
                pass.bodiesThrough = step.through
                // Between steps, the writer's batches go first.
                await Task.yield()
            }
        }
        return total
    }
}
