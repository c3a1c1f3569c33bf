import ArgumentParser
import Foundation
import SKANCore

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

    @OptionGroup var keys: KeyOptions

    @Argument(help: "Postback files; '-' or none for standard input.")
    var files: [String] = []

    func run() throws {
        let verifier = PostbackVerifier(keyRing: try keys.keyRing())
        try RecordReader.checkReadable(files)
        // Three stages overlap: the next batch is read while this one is verified on every core, and the
        // previous one is written meanwhile; output order is input order throughout.
        let reader = LockedReader(RecordReader(paths: files))
        let batches = Prefetcher { try reader.nextBatch() }
        let output = OrderedWriter { bytes in FileHandle.standardOutput.write(Data(bytes)) }
        var allValid = true
        var isFirstBatch = true
        let format = format
        let maximum = JSONRecordSplitter.defaultMaximumRecordLength
        while let batch = try batches.next() {
            let results = Parallel.map(batch) { sourced -> (valid: Bool, line: String, row: [String]) in
                let verdict: PostbackVerdict = sourced.record.isTooLong
                    ? .malformed(MalformedPostback(field: nil, reason: "the record is longer than \(maximum) bytes"))
                    : verifier.verify(record: sourced.record.bytes)
                return format == .csv
                    ? (verdict.isValid, "", VerdictFormat.row(verdict, at: sourced.location))
                    : (verdict.isValid, VerdictFormat.line(verdict, at: sourced.location, as: format) + "\n", [])
            }
            allValid = allValid && results.allSatisfy(\.valid)
            if format == .csv {
                output.submit(Array(VerdictFormat.csv((isFirstBatch ? [VerdictFormat.csvHeader] : []) + results.map(\.row))))
            } else {
                output.submit(Array(results.map(\.line).joined().utf8))
            }
            isFirstBatch = false
        }
        if isFirstBatch && format == .csv { output.submit(Array(VerdictFormat.csv([VerdictFormat.csvHeader]))) }
        output.drain()
        if !allValid { throw ExitCode.failure }
    }
}
