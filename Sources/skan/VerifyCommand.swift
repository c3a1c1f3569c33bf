import ArgumentParser
import Foundation
import SKANCore
import SKANReports

/// `skan verify`: judges postbacks as an ad network receives them.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify SKAdNetwork postbacks against Apple's keys.",
        discussion: """
            Reads postbacks from each FILE (one JSON object, or JSON lines; '-' or no FILE reads standard input) \
            and prints one result per postback, in input order: valid, invalid-signature, malformed or \
            unsupported-version. Versions 1.0 and 2.0 are checked with Apple's P-192 key, 2.1 and later with \
            its P-256 key. Streams any amount of input in flat memory on every core.

            Exit status: 0 when every postback is valid, 1 when any is not, 2 for usage errors.
            """
    )

    @Option(help: "Output: text (one line each), json (one object per line) or csv (RFC 4180 with a header).")
    var format: VerdictFormat = .text

    @Flag(help: "With --format csv, cells exactly as read, for machines. By default a postback's value beginning with = + - @, a tab or a CR gets a leading ' so that spreadsheets do not run it as a formula.")
    var csvRaw = false

    @OptionGroup var keys: KeyOptions

    /// What one chunk of records gives: whether all were valid, and their output as bytes or CSV rows.
    struct ChunkResult: Sendable {
        var valid: Bool
        var bytes: [UInt8]
        var rows: [[String]]
    }

    /// Records per unit of parallel work: enough that per-chunk costs vanish, few enough to keep both cores busy.
    static let chunkSize = 32

    @Argument(help: "Postback files; '-' or none for standard input.")
    var files: [String] = []

    func run() throws {
        let verifier = AttributionVerifier(keyRing: try keys.keyRing())
        try RecordReader.checkReadable(files)
        // Three stages overlap: the next batch is read while this one is verified on every core, and the
        // previous one is written meanwhile; output order is input order throughout.
        let reader = LockedReader(RecordReader(paths: files))
        let batches = Prefetcher { try reader.nextBatch() }
        // Straight from the arrays (no `Data` copy). A reader that went away (`skan verify … | head`) ends the
        // output: the rest has nowhere to go.
        let output = OrderedWriter { bytes in _ = BufferedOutput.writeAll(bytes, to: STDOUT_FILENO) }
        var allValid = true
        var isFirstBatch = true
        let format = format
        let csvText: CSVText = csvRaw ? .raw : .spreadsheetSafe
        let maximum = JSONRecordSplitter.defaultMaximumRecordLength
        // Hands a finished batch's output to the writer, in input order.
        func emit(_ results: [ChunkResult]) {
            allValid = allValid && results.allSatisfy(\.valid)
            if format == .csv {
                output.submit(Array(VerdictFormat.csv((isFirstBatch ? [VerdictFormat.csvHeader] : []) + results.flatMap(\.rows))))
            } else {
                // Each chunk's buffer goes to the writer as it is: joining them would copy every output byte.
                output.submit(parts: results.map(\.bytes))
            }
            isFirstBatch = false
        }
        // One batch is collected only after the next has started, so the cores go on from one batch into the
        // next instead of meeting at a barrier at the end of each (two batches in memory at most).
        var running: ParallelMap<ChunkResult>?
        func collectRunning() {
            if let batch = running { emit(batch.wait()) }
            running = nil
        }
        do {
            while let batch = try batches.next() {
                // Chunks of records, not single records, go to the cores: each chunk's output is one buffer.
                let chunks = stride(from: 0, to: batch.count, by: Self.chunkSize).map { $0..<min($0 + Self.chunkSize, batch.count) }
                let started = Parallel.start(chunks) { range -> ChunkResult in
                    var result = ChunkResult(valid: true, bytes: [], rows: [])
                    // About one JSON line of a valid postback per record: one allocation per chunk, not a few.
                    if format != .csv { result.bytes.reserveCapacity(range.count * 512) }
                    for sourced in batch[range] {
                        let verdict: AttributionVerdict = sourced.record.isTooLong
                            ? .malformed("the record is longer than \(maximum) bytes")
                            : verifier.verify(record: sourced.record.bytes)
                        result.valid = result.valid && verdict.isValid
                        if format == .csv {
                            result.rows.append(VerdictFormat.row(verdict, at: sourced.location, text: csvText))
                        } else {
                            VerdictFormat.appendLine(verdict, source: sourced.source, line: sourced.record.line, as: format,
                                                     to: &result.bytes)
                        }
                    }
                    return result
                }
                collectRunning()
                running = started
            }
        } catch {
            // A later file that cannot be opened (removed after the up-front check) ends the run, but the
            // postbacks read before it are still written, in order, before the error.
            collectRunning()
            output.drain()
            throw error
        }
        collectRunning()
        if isFirstBatch && format == .csv { output.submit(Array(VerdictFormat.csv([VerdictFormat.csvHeader]))) }
        output.drain()
        if !allValid { throw ExitCode.failure }
    }
}
