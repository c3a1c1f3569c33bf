import ArgumentParser
import Foundation
import SKANCore

/// `skan verify-impression`: checks signed impressions as a device does.
struct VerifyImpressionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-impression",
        abstract: "Check signed impressions with an ad network's public key, as a device does.",
        discussion: """
            Reads impressions (StoreKit parameter dictionaries, SKAdImpression properties, web \
            AdImpressionResponse objects or AdAttributionKit {"jws": ...} objects, as 'skan sign' prints them; one \
            JSON object or JSON lines) and prints \
            valid or the reason a device would refuse each one. The key may be P-256 or P-192 (networks that \
            registered in mid-2020 still sign with prime192v1 keys, and devices accept them); the key file says \
            which. Exit status: 0 when all are valid, 1 otherwise, 2 for usage errors (a key on any other curve \
            among them).
            """
    )

    @Option(name: .customLong("public-key"), help: "The ad network's P-256 or P-192 public key: a PEM or Base64 file, or the Base64 itself.")
    var publicKey: String

    @Argument(help: "Impression files; '-' or none for standard input.")
    var files: [String] = []

    func run() throws {
        let publicKey = try KeyFiles.publicKey(publicKey, option: "--public-key")
        try RecordReader.checkReadable(files)
        var reader = RecordReader(paths: files)
        var allValid = true
        while let batch = try reader.nextBatch() {
            for sourced in batch {
                switch SignedAttributionImpression.parse(sourced.record.bytes).flatMap({ $0.verify(publicKey: publicKey) }) {
                case .success(let impression):
                    print("\(sourced.location) valid \(impression.summary)")
                case .failure(let refusal):
                    print("\(sourced.location) \(refusal.kind.rawValue) — \(refusal.reason)")
                    allValid = false
                }
            }
        }
        if !allValid { throw ExitCode.failure }
    }
}
