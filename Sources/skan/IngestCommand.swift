import ArgumentParser
import Foundation
import Logging
import SKANCollector
import SKANCore
import SKANStore

/// `skan ingest`: loads JSON-lines postbacks into the collector's database through the same pipeline as `serve`.
struct IngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Load postbacks from JSON-lines files into the database: verify, drop duplicates, store.",
        discussion: """
            Reads each FILE ('-' for standard input) as JSON lines: bare postbacks, or the envelopes that \
            `skan simulate` writes ({"send-at": ..., "postback": {...}}). Verifies on every core, stores in \
            batches (one transaction each), shows progress on standard error, and prints the counts.

            Exit status: 0 when every record was accepted or a duplicate, 1 when any was refused, 2 for usage errors.
            """
    )

    @Option(help: "The SQLite database file (created when missing), or a postgres:// URL.")
    var db: String

    @Option(help: ArgumentHelp(
        "Where a record's received time comes from: send-at (an envelope's send time, now for a bare postback) or now.",
        discussion: "send-at puts a simulated campaign on its simulated days, so reports over it are reproducible."))
    var receivedAt: PostbackPipeline.ReceivedTime = .sendAt

    @Option(help: ArgumentHelp(
        "Records per transaction.",
        discussion: "Larger batches share each commit and its fsync among more postbacks; a collector's group commits are smaller (hundreds), which Benchmarks/budget.sh mimics."))
    var batchSize = 4096

    @OptionGroup var keys: KeyOptions

    @OptionGroup var storage: StorageOptions

    @Argument(help: "JSON-lines files; '-' for standard input.")
    var files: [String]

    func validate() throws {
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1, got \(batchSize)") }
    }

    func run() async throws {
        let verifier = AttributionVerifier(keyRing: try keys.keyRing())
        try RecordReader.checkReadable(files)
        let store = try storage.open(db)
        var progress = IngestProgress(totalBytes: files.reduce(0) { $0 + RecordReader.size(of: $1) })
        var counts: [PostbackReply.Outcome: Int] = [:]
        var refusals = RefusedRecords()
        // The store's own work (a PostgreSQL pool) runs while the postbacks are written, and stops after the close.
        try await StoreHost.running([store]) {
            do throws(StoreError) { try await store.migrate() } catch { throw CLIError(error.reason) }
            let logger = Logger(label: "skan.ingest")
            let writer = GroupCommitWriter(store: store, onFailure: StoreFailureLog(logger: logger).record)
            let pipeline = PostbackPipeline(verifier: verifier, writer: writer, logger: logger)
            // The engine's periodic jobs (PostgreSQL's refusal cap) run while the postbacks are written.
            try await StoreJob.running(store.periodicJobs, failed: { job, error in
                logger.warning("\(job.name) failed; it runs again", metadata: ["reason": "\(error.reason)"])
            }) { try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await writer.run() }
                defer { writer.finish() }
                var reader = RecordReader(paths: files)
                while let batch = try reader.nextBatch(minimum: batchSize) {
                    let results = await pipeline.ingest(batch.map { Array($0.record.bytes) }, endpoint: "ingest",
                                                        receivedAt: receivedAt)
                    for (result, sourced) in zip(results, batch) {
                        counts[result.reply.outcome, default: 0] += 1
                        refusals.note(result.reply, at: sourced.location)
                    }
                    progress.advance(records: batch.count, bytes: batch.reduce(0) { $0 + $1.record.bytes.count + 1 })
                }
                writer.finish()
                try await group.waitForAll()
            } }
            progress.finish()
            refusals.finish()
            do throws(StoreError) {
                try await store.close()
            } catch {
                throw CLIError(error.reason, exitCode: .failure)
            }
        }
        let total = counts.values.reduce(0, +)
        let line = PostbackReply.Outcome.allCases.compactMap { outcome in
            counts[outcome].map { "\(outcome.rawValue) \($0)" }
        }.joined(separator: ", ")
        let shown = try StoreLocation(db).display
        print("ingested \(total) records into \(shown): \(line.isEmpty ? "nothing" : line)")
        if counts[.unavailable, default: 0] > 0 { throw CLIError("the database refused some writes", exitCode: .failure) }
        let refused = total - counts[.accepted, default: 0] - counts[.duplicate, default: 0]
        if refused > 0 { throw ExitCode.failure }
    }
}

extension PostbackPipeline.ReceivedTime: ExpressibleByArgument {}

/// Names the records `skan ingest` refused, on standard error: where each is (file and line) and why, for the first
/// ``shown``, then how many more. A count alone left a user to find a bad line in a million.
struct RefusedRecords {
    static let shown = 10
    private(set) var count = 0

    mutating func note(_ reply: PostbackReply, at location: String) {
        switch reply.outcome {
        case .accepted, .duplicate, .unavailable: return
        default: break
        }
        count += 1
        guard count <= Self.shown else { return }
        let field = reply.field.map { " (\($0))" } ?? ""
        let line = "skan: \(location): \(reply.outcome.rawValue)\(field): \(reply.reason ?? "refused")"
        FileHandle.standardError.write(Data((Excerpt.printable(line, maximumBytes: 512) + "\n").utf8))
    }

    func finish() {
        guard count > Self.shown else { return }
        FileHandle.standardError.write(Data("skan: and \(count - Self.shown) more refused records\n".utf8))
    }
}

/// A one-line progress bar on standard error, redrawn at most ten times a second, by bytes read.
struct IngestProgress {
    let totalBytes: Int
    private var records = 0
    private var bytes = 0
    private var lastDrawn = Date.distantPast
    /// The record count last drawn, so that ``finish()`` does not print the same line again where lines pile up.
    private var drawnRecords: Int?
    private let isTerminal = isatty(STDERR_FILENO) != 0

    init(totalBytes: Int) {
        self.totalBytes = totalBytes
    }

    mutating func advance(records count: Int, bytes read: Int) {
        records += count
        bytes += read
        let now = Date()
        if now.timeIntervalSince(lastDrawn) >= 0.1 {
            lastDrawn = now
            drawnRecords = records
            draw(ending: isTerminal ? "\r" : "\n")
        }
    }

    /// Ends the bar with the final count. On a terminal the line is redrawn in place and ended; elsewhere each
    /// drawing is a line of its own, so the final one is printed only if it is not already the last line.
    func finish() {
        if !isTerminal && drawnRecords == records { return }
        draw(ending: "\n")
    }

    private func draw(ending: String) {
        let fraction = totalBytes > 0 ? min(1, Double(bytes) / Double(totalBytes)) : 1
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = "[\(bar)] \(Int(fraction * 100))% \(records) records" + ending
        FileHandle.standardError.write(Data(line.utf8))
    }
}
