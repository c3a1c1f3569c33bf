import ArgumentParser
import Foundation
import SKANRelay
import SKANStore

/// `skan relay`: what the relay's outbox holds, and dead letters sent again.
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "See and steer the relay's outbox: what waits per destination, and dead letters sent again.",
        discussion: """
            skan serve --relay FILE queues every accepted postback for each destination that takes it, in the \
            transaction that stores it, and sends it at least once (docs/guides/relay.md).
            """,
        subcommands: [Status.self, Retry.self, Replay.self]
    )

    /// The relay configuration at `path`, checked, or `nil` without a path. Read before anything is opened: a bad
    /// file stops `skan serve` without leaving a database behind.
    static func configuration(_ path: String?) throws(CLIError) -> RelayConfiguration? {
        guard let path else { return nil }
        do {
            return try RelayConfiguration.load(path: path)
        } catch {
            throw CLIError(error.reason)
        }
    }

    static func outbox(of store: any PostbackStore) throws(CLIError) -> any Outbox {
        guard let outbox = store as? any Outbox else {
            throw CLIError("the \(type(of: store)) store keeps no relay outbox, so --relay cannot use it")
        }
        return outbox
    }

    /// Opens the store at `db` with its schema up to date and hosted (``StoreHost``), runs `body` on its outbox and
    /// the store's location, and closes it.
    static func withOutbox<T: Sendable>(_ db: String, _ body: (any Outbox, StoreLocation) async throws -> T) async throws -> T {
        let location = try StoreLocation(db)
        let store = try location.openStore()
        return try await StoreHost.running([store]) { try await closing(store, location, body) }
    }

    private static func closing<T: Sendable>(_ store: any PostbackStore, _ location: StoreLocation,
                                             _ body: (any Outbox, StoreLocation) async throws -> T) async throws -> T {
        do {
            try await store.migrate()
            let result = try await body(try outbox(of: store), location)
            try await store.close()
            return result
        } catch let error as StoreError {
            try? await store.close()
            throw CLIError(error.reason, exitCode: .failure)
        } catch {
            try? await store.close()
            throw error
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Per destination: entries waiting, dead letters, the oldest waiting and the last error.")

        @Option(help: "The collector's SQLite database, or a postgres:// URL.")
        var db = "skan.sqlite"

        func run() async throws {
            let depths = try await RelayCommand.withOutbox(db) { outbox, _ in try await outbox.depths() }
            var lines = [["DESTINATION", "QUEUED", "DEAD", "OLDEST", "LAST ERROR"]]
            for depth in depths {
                lines.append([depth.destination, String(depth.pending), String(depth.dead),
                              depth.oldest.map(Timestamp.iso8601) ?? "-", depth.lastError ?? "-"])
            }
            if depths.isEmpty { lines.append(["(nothing queued)", "", "", "", ""]) }
            let widths = (0 ..< 4).map { column in lines.map { $0[column].count }.max() ?? 0 }
            for line in lines {
                let padded = line.enumerated().map { index, cell in
                    index < 4 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) : cell
                }
                print(padded.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make dead letters due again, their attempts reset (a running skan serve --relay sends them).")

        @Option(help: "The collector's SQLite database, or a postgres:// URL.")
        var db = "skan.sqlite"

        @Flag(help: "Retry the dead letters (required: the only kind of entry this sends again).")
        var dead = false

        @Option(help: "Only this destination's (default: every destination's).")
        var destination: String?

        func run() async throws {
            guard dead else { throw CLIError("skan relay retry: say --dead: only dead letters are retried") }
            let destination = destination
            let count = try await RelayCommand.withOutbox(db) { outbox, _ in
                try await outbox.reviveDead(destination: destination, now: Date())
            }
            print("\(count) dead letter\(count == 1 ? "" : "s") due again\(destination.map { " for \($0)" } ?? "")")
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue stored postbacks again for one destination (a running skan serve --relay sends them).",
            discussion: """
                Each postback that arrived on the days given, and that the destination's filters take, is queued \
                with the Idempotency-Key it got (or would have got) when it arrived, so a partner that has it \
                already drops the repeat. ip-address and user-agent, never stored, are null in a replayed body.
                """)

        @Option(help: "The collector's SQLite database, or a postgres:// URL.")
        var db = "skan.sqlite"

        @Option(help: "The relay configuration that names the destination (as skan serve --relay).")
        var relay: String

        @Option(help: "The destination to queue the postbacks for.")
        var destination: String

        @Option(help: "First arrival day included, YYYY-MM-DD (UTC).")
        var since: String

        @Option(help: "Last arrival day included, YYYY-MM-DD (UTC; default: every day since).")
        var until: String?

        func run() async throws {
            let configuration: RelayConfiguration
            let days: RelayReplay.Days
            do {
                configuration = try RelayConfiguration.load(path: relay)
                days = try RelayReplay.Days(since: since, until: until)
            } catch {
                throw CLIError(error.reason)
            }
            guard let target = configuration.destinations.first(where: { $0.name == destination }) else {
                let names = configuration.destinations.map(\.name).joined(separator: ", ")
                throw CLIError("--destination \(destination): not in \(relay) (it names \(names.isEmpty ? "none" : names))")
            }
            let count = try await RelayCommand.withOutbox(db) { outbox, location in
                let reader = try await location.openReader()
                return try await StoreHost.running([reader]) {
                    do {
                        // A thousand postbacks read, then their entries queued in one transaction: a long history
                        // never holds the writer for long, nor more than a step in memory.
                        let count = try await RelayReplay.replay(from: reader, to: target, days: days, batch: 1000) { items in
                            try await outbox.enqueue(items, now: Date())
                        }
                        await reader.close()
                        return count
                    } catch {
                        await reader.close()
                        throw error
                    }
                }
            }
            print("\(count) postback\(count == 1 ? "" : "s") queued for \(destination)")
        }
    }
}
