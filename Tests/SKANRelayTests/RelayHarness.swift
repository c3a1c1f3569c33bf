import Foundation
import Logging
import SKANCore
import SKANRelay
import SKANStore
import SKANTestSupport
import Synchronization
import Testing

/// What the delivery tests share: destinations on a local receiver, a clock the test moves, postbacks written
/// through the store's write path with the router's outbox items, and a relay run as a task.
enum RelayHarness {
    static func destination(port: Int, name: String = "partner", inFlight: Int = 4, timeout: Duration = .seconds(5),
                            deadAfter: Int = 3, headers: [RelayHeader] = [], signature: RelaySignature? = nil,
                            filter: RelayFilter = RelayFilter(), body: RelayBody = .received) -> RelayDestination {
        RelayDestination(name: name, url: URL(string: "http://127.0.0.1:\(port)/in")!, filter: filter, body: body,
                         headers: headers, signature: signature, inFlight: inFlight, timeout: timeout, deadAfter: deadAfter)
    }

    /// The system's time plus what the test added; short real sleeps; the whole backoff delay (no jitter).
    final class TestClock: Sendable {
        private let offset = Mutex<TimeInterval>(0)

        func advance(seconds: TimeInterval) { offset.withLock { $0 += seconds } }

        var clock: RelayClock {
            RelayClock(now: { Date().addingTimeInterval(self.offset.withLock { $0 }) },
                       sleep: { try await Task.sleep(for: min($0, .milliseconds(20))) }, jitter: { 1 })
        }
    }

    static let logger = Logger(label: "relay-test")

    /// Writes `count` fresh postbacks (at `endpoint`) through `store`'s write path, each with the outbox items
    /// `configuration` routes for it; returns the keys of the items queued.
    @discardableResult
    static func write(_ count: Int, to store: any PostbackStore, configuration: RelayConfiguration,
                      endpoint: String = "/postbacks") async throws -> [String] {
        let router = RelayRouter(configuration: configuration)
        var keys: [String] = []
        var entries: [StoreEntry] = []
        for _ in 0 ..< count {
            let (verified, body) = TestPostbacks.verified()
            var accepted = AcceptedPostback(attribution: verified, rawBody: body, receivedAt: Date(), endpoint: endpoint)
            accepted.outbox = router.items(for: accepted, arrival: Arrival())
            keys += accepted.outbox.map(\.idempotencyKey)
            entries.append(.accepted(accepted))
        }
        let outcomes = try await store.write(entries)
        #expect(outcomes.allSatisfy { $0 == .stored })
        return keys
    }

    static func service(_ configuration: RelayConfiguration, outbox: any Outbox, clock: TestClock) -> RelayService {
        RelayService(configuration: configuration, outbox: outbox, logger: logger, clock: clock.clock,
                     backoff: RelayBackoff(base: .milliseconds(20), cap: .milliseconds(100)),
                     pollInterval: .milliseconds(10), batchSize: 16, metricsInterval: .milliseconds(50))
    }

    /// Runs `service` until the task is cancelled.
    static func start(_ service: RelayService) -> Task<Void, any Error> {
        Task { try await service.run() }
    }

    /// Polls `condition` every 20 ms for up to `seconds`; whether it came true.
    static func eventually(within seconds: Double = 90, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }
}
