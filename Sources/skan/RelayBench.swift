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
            let service = RelayService(configuration: configuration, outbox: outbox,
                                       logger: Logger(label: "skan.bench.relay"))
            let sending = Task { try await service.run() }
            let deadline = Date().addingTimeInterval(timeout)
            while try await outbox.depths().contains(where: { $0.pending > 0 }) {
                guard Date() < deadline else {
                    sending.cancel()
                    throw CLIError("the outbox was not empty after \(timeout) s", exitCode: .failure)
                }
                // Seldom: each look is a read transaction, counted with the rest.
                try await Task.sleep(for: .milliseconds(500))
            }
            sending.cancel()
            _ = try? await sending.value
        }
    }
}
