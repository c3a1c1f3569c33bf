import Foundation
import Logging
import ServiceLifecycle
import SKANStore
import Synchronization

/// Sends what the outbox holds to its destinations, at least once: a ``Service`` in the collector's one group.
///
/// One loop per destination claims a batch of due entries with a lease, sends them with at most
/// ``RelayDestination/inFlight`` requests at once, and settles the batch in one transaction. Postback ingest never
/// waits on it: the write path only inserts the entries. A graceful shutdown stops delivery at once: requests in
/// flight are cancelled and their entries released, due again at the next start; a crash leaves them leased, due
/// again when the lease ends. Either way nothing is lost, and a postback may be sent twice, with the same key.
public struct RelayService: Service {
    /// The destinations.
    public let configuration: RelayConfiguration
    let outbox: any Outbox
    let metrics: RelayMetrics?
    let logger: Logger
    let clock: RelayClock
    let backoff: RelayBackoff
    /// How long an idle loop waits before it looks for due entries again.
    let pollInterval: Duration
    /// How long a loop waits after a batch that was not full: a quarter of the poll interval.
    var fillInterval: Duration { pollInterval / 4 }
    /// Entries claimed at once per destination.
    let batchSize: Int
    /// How often the outbox gauges are read.
    let metricsInterval: Duration

    /// Makes the service; nothing is sent before ``run()``.
    public init(configuration: RelayConfiguration, outbox: any Outbox, metrics: RelayMetrics? = nil, logger: Logger,
                clock: RelayClock = .system, backoff: RelayBackoff = RelayBackoff(),
                pollInterval: Duration = .milliseconds(200), batchSize: Int = 64,
                metricsInterval: Duration = .seconds(10)) {
        self.configuration = configuration
        self.outbox = outbox
        self.metrics = metrics
        self.logger = logger
        self.clock = clock
        self.backoff = backoff
        self.pollInterval = pollInterval
        self.batchSize = batchSize
        self.metricsInterval = metricsInterval
    }

    public func run() async throws {
        let sender = try RelaySender(destinations: configuration.destinations)
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for destination in configuration.destinations {
                    group.addTask { await deliver(to: destination, sender: sender) }
                }
                if metrics != nil { group.addTask { await refreshGauges() } }
            }
        }
        sender.stop()
    }

    /// The loop of one destination, until cancelled.
    private func deliver(to destination: RelayDestination, sender: RelaySender) async {
        // A batch is many rounds of `inFlight` (each claim and settlement is a transaction: fewer, larger ones cost
        // less a postback), yet never outlasts its lease: no request starts later than two timeouts before the lease
        // ends, and what was not started is released for the next claim. The lease can stay short: a killed
        // sender's entries are due again soon after.
        let batch = max(batchSize, destination.inFlight * 2)
        let lease = destination.lease
        var failing = false
        while !Task.isCancelled {
            let now = clock.now()
            let leaseUntil = now.addingTimeInterval(lease.seconds)
            let entries: [OutboxEntry]
            do {
                entries = try await outbox.claim(destination: destination.name, limit: batch, now: now, leaseUntil: leaseUntil)
                failing = false
            } catch {
                if !Task.isCancelled && !failing {
                    logger.error("cannot read the relay outbox", metadata: ["destination": "\(destination.name)", "error": "\(error.reason)"])
                }
                failing = true
                try? await clock.sleep(pollInterval)
                continue
            }
            if entries.isEmpty {
                try? await clock.sleep(pollInterval)
                continue
            }
            let settlements = await send(entries, to: destination, sender: sender, leaseUntil: leaseUntil)
            await settle(settlements, destination: destination)
            // A short batch means the outbox is drained: wait for a fuller one rather than pay a claim and a settle
            // transaction for every few postbacks (a postback waited a day on the device; 50 ms more is nothing).
            if entries.count < batch { try? await clock.sleep(fillInterval) }
        }
    }

    /// Sends `entries` with at most `inFlight` at once; one settlement per entry.
    private func send(_ entries: [OutboxEntry], to destination: RelayDestination, sender: RelaySender,
                      leaseUntil: Date) async -> [OutboxSettlement] {
        let attempts = await sender.send(entries, to: destination,
                                         within: .milliseconds(Int64(leaseUntil.timeIntervalSince(clock.now()) * 1000)))
        let now = clock.now()
        return zip(entries, attempts).map { entry, attempt in
            attempt.settlement(of: entry, destination: destination, backoff: backoff, now: now, jitter: clock.jitter())
        }
    }

    /// Settles a batch even while delivery is being cancelled (a new task is not cancelled with this one, and is
    /// awaited here): what was sent leaves the outbox, what was not is released.
    private func settle(_ settlements: [OutboxSettlement], destination: RelayDestination) async {
        let (outbox, logger, metrics) = (outbox, logger, metrics)
        await Task {
            do throws(StoreError) {
                try await outbox.settle(settlements)
            } catch {
                // Still leased: sent again once the lease ends, with the same key.
                logger.error("cannot settle relay entries", metadata: ["destination": "\(destination.name)", "error": "\(error.reason)"])
                return
            }
            for settlement in settlements {
                metrics?.record(settlement, destination: destination.name)
                if case .dead(_, let error) = settlement {
                    logger.warning("a relay entry is a dead letter", metadata: ["destination": "\(destination.name)", "error": "\(error)"])
                }
            }
        }.value
    }

    private func refreshGauges() async {
        while !Task.isCancelled {
            if let depths = try? await outbox.depths() { metrics?.record(depths, now: clock.now()) }
            try? await clock.sleep(metricsInterval)
        }
    }
}
