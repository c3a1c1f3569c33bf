import ArgumentParser
import Foundation
import SKANCore

/// `skan verify-impression`: checks signed impressions as a device does.
struct VerifyImpressionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-impression",
        abstract: "Check signed impressions with an ad network's public key, as a device does.",
        discussion: """
            Reads impressions (StoreKit parameter dictionaries, SKAdImpression properties or web \
            AdImpressionResponse objects, as 'skan sign' prints them; one JSON object or JSON lines) and prints \
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
        let verifier = ImpressionVerifier(publicKey: try KeyFiles.publicKey(publicKey, option: "--public-key"))
        try RecordReader.checkReadable(files)
        var reader = RecordReader(paths: files)
        var allValid = true
        while let batch = try reader.nextBatch() {
            for sourced in batch {
                if let jws = Self.adAttributionKitImpression(sourced.record.bytes) {
                    switch AAKImpression.verify(jws, publicKey: verifier.publicKey) {
                    case .success(let impression):
                        print("\(sourced.location) valid framework=adattributionkit kid=\(impression.adNetworkIdentifier) impression-identifier=\(impression.impressionIdentifier)")
                    case .failure(let error):
                        print("\(sourced.location) invalid — \(error.reason)")
                        allValid = false
                    }
                    continue
                }
                let line: String
                switch SignedImpression.parse(sourced.record.bytes) {
                case .failure(let error):
                    line = "\(sourced.location) malformed — \(error.reason)"
                    allValid = false
                case .success(let signed):
                    switch verifier.verify(signed) {
                    case .valid:
                        line = "\(sourced.location) valid version=\(signed.impression.version) kind=\(signed.impression.kind) nonce=\(signed.impression.nonceText)"
                    case .invalidFields(let reason):
                        line = "\(sourced.location) invalid-fields — \(reason)"
                        allValid = false
                    case .invalidSignature(let reason):
                        line = "\(sourced.location) invalid-signature — \(reason)"
                        allValid = false
                    }
                }
                print(line)
            }
        }
        if !allValid { throw ExitCode.failure }
    }

    /// The compact JWS of an AdAttributionKit impression as `skan sign --framework aak` prints it (`{"jws": …}`).
    static func adAttributionKitImpression(_ bytes: some Collection<UInt8>) -> String? {
        guard case .success(let members) = JSONObjectReader.members(of: bytes), members.count == 1,
              members[0].key == "jws", case .string(let jws) = members[0].value else { return nil }
        return jws
    }
}
