import ArgumentParser
import Dispatch
import Foundation
import Logging
import SKANRelay
import SKANStore
import Synchronization

/// `skan bench relay`: the relay sending what an outbox already holds until none is left, for Benchmarks/budget.sh.
///
/// The relay's instructions per postback, counted under callgrind, are the figure its budget holds. Draining a
/// filled outbox makes every claim a full batch, so the count does not depend on how fast postbacks arrived; the
/// receiver is another process, so its work is not counted. The main thread waits, as in `skan bench ingest`
/// (valgrind cannot run an async command's main).
struct RelayBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Send what the outbox of --db holds to the destinations of --relay until none is left (Benchmarks/budget.sh).",
        shouldDisplay: false)

    @Option(help: "The SQLite database whose outbox is sent.")
    var db: String

    @Option(help: "The relay configuration (as skan serve --relay).")
    var relay: String

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 600

    func run() throws {
        let (db, relay, timeout) = (db, relay, timeout)
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await Self.drain(db: db, relay: relay, timeout: timeout)
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    static func drain(db: String, relay: String, timeout: Double) async throws {
        let configuration: RelayConfiguration
        do { configuration = try RelayConfiguration.load(path: relay) } catch { throw CLIError(error.reason) }
        try await RelayCommand.withOutbox(db) { outbox, _ in
            let draining = DrainingOutbox(outbox, destinations: configuration.destinations.count)
            let service = RelayService(configuration: configuration, outbox: draining,
                                       logger: Logger(label: "skan.bench.relay"))
            let sending = Task { try await service.run() }
            let watchdog = Task {
                try await Task.sleep(for: .seconds(timeout))
                draining.finish()
            }
            await draining.drained()
            sending.cancel()
            watchdog.cancel()
            _ = try? await sending.value
            // Once, at the end: the outbox is empty, or the run failed (entries retrying or dead).
            if let left = try await outbox.depths().first(where: { $0.pending > 0 || $0.dead > 0 }) {
                throw CLIError("the outbox was not empty after the drain (\(left.destination): \(left.pending) waiting, "
                               + "\(left.dead) dead)", exitCode: .failure)
            }
        }
    }
}

/// The outbox as the benchmark's relay sees it: every call passed on, and the drain known to be over when every
/// destination's claim came back empty. Polling `depths()` instead scanned the whole outbox on every look, and how
/// many looks a run took depended on its speed, which the counted figure must not.
private final class DrainingOutbox: Outbox {
    private let base: any Outbox
    private let state: Mutex<(empty: Set<String>, waiter: CheckedContinuation<Void, Never>?, done: Bool)>
    private let destinations: Int

    init(_ base: any Outbox, destinations: Int) {
        self.base = base
        self.destinations = destinations
        state = Mutex((empty: [], waiter: nil, done: false))
    }

    /// Returns when every destination's claim came back empty (or ``finish()`` was called).
    func drained() async {
        await withCheckedContinuation { continuation in
            let resume = state.withLock { state -> Bool in
                if state.done { return true }
                state.waiter = continuation
                return false
            }
            if resume { continuation.resume() }
        }
    }

    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.done = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func claim(destination: String, limit: Int, now: Date, leaseUntil: Date) async throws(StoreError) -> [OutboxEntry] {
        let entries = try await base.claim(destination: destination, limit: limit, now: now, leaseUntil: leaseUntil)
        if entries.isEmpty {
            let all = state.withLock { state -> Bool in
                state.empty.insert(destination)
                return state.empty.count >= destinations
            }
            if all { finish() }
        }
        return entries
    }

    func settle(_ settlements: [OutboxSettlement]) async throws(StoreError) { try await base.settle(settlements) }
    func depths() async throws(StoreError) -> [OutboxDepth] { try await base.depths() }
    func reviveDead(destination: String?, now: Date) async throws(StoreError) -> Int {
        try await base.reviveDead(destination: destination, now: now)
    }
    func enqueue(_ items: [OutboxItem], now: Date) async throws(StoreError) { try await base.enqueue(items, now: now) }
}