import Foundation

/// Something that POSTs a postback body and reports the HTTP status.
public protocol PostbackTransport {
    /// Sends `body`; returns the HTTP status, or throws when no answer came (which a device also retries).
    func send(_ body: [UInt8]) throws -> Int
}

/// Delivers postbacks in send-time order as a device does: a reply other than HTTP 200 is retried every
/// 24 simulated hours, up to nine times (spec §6.4: "up to nine times over at most 9 days").
public final class PostbackDelivery {
    /// Retries after the first attempt.
    public static let maximumRetries = 9
    /// Simulated time between attempts.
    public static let retryInterval: Int64 = 24 * SimulatedTime.hour

    /// Counts of what happened.
    public struct Report: Sendable, Hashable {
        /// Postbacks the collector accepted with 200.
        public var delivered = 0
        /// Attempts after a first failure.
        public var retries = 0
        /// Postbacks still refused after every retry.
        public var failed = 0
    }

    private struct Pending {
        var due: Int64
        var attempt: Int
        var sequence: Int
        var body: [UInt8]
    }

    private let transport: any PostbackTransport
    private let clock: any DeliveryClock
    private var retrying: [Pending] = []
    private var sequence = 0
    /// What happened so far.
    public private(set) var report = Report()
    /// Every attempt as (simulated time, attempt number from 0), for tests.
    public private(set) var attempts: [(time: Int64, attempt: Int)] = []

    /// A delivery through `transport`, pacing on `clock`.
    public init(transport: any PostbackTransport, clock: any DeliveryClock) {
        self.transport = transport
        self.clock = clock
    }

    /// Sends a record due now in send-time order, after any retry that falls due before it.
    public func enqueue(_ record: SimulatedRecord) throws {
        drain(until: record.sendAt)
        sequence += 1
        attempt(Pending(due: record.sendAt, attempt: 0, sequence: sequence, body: record.postback))
    }

    /// Runs the remaining retries.
    public func finish() throws {
        drain(until: .max)
    }

    private func drain(until time: Int64) {
        while let next = retrying.indices.min(by: { (retrying[$0].due, retrying[$0].sequence) < (retrying[$1].due, retrying[$1].sequence) }),
              retrying[next].due <= time {
            attempt(retrying.remove(at: next))
        }
    }

    private func attempt(_ pending: Pending) {
        clock.wait(until: pending.due)
        attempts.append((pending.due, pending.attempt))
        if pending.attempt > 0 { report.retries += 1 }
        let status = (try? transport.send(pending.body)) ?? 0
        if status == 200 {
            report.delivered += 1
        } else if pending.attempt < Self.maximumRetries {
            var again = pending
            again.attempt += 1
            again.due += Self.retryInterval
            retrying.append(again)
        } else {
            report.failed += 1
        }
    }
}
