import ArgumentParser
import CSV
import Foundation
import SKANCore

/// `skan sign`: signs impressions with an ad network's key.
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign an ad impression (or a CSV of them) with your ad network's P-256 or P-192 key.",
        discussion: """
            Prints the signed impression as JSON in the shape a device takes: the StoreKit parameter dictionary \
            for StoreKit-rendered ads, SKAdImpression properties for view-through ads (--fidelity-type 0), the web \
            AdImpressionResponse when --source-domain is given. With --input, signs one impression per CSV row \
            (header names are the long option names, e.g. version,ad-network-id,campaign-id,itunes-item-id,\
            source-app-id) and prints JSON lines; a bad row is reported on standard error and the rest go on. \
            --framework adattributionkit signs AdAttributionKit impressions instead, one option or column per field. \
            The key may be P-256 (what Apple asks for today) or P-192 (prime192v1, what Apple asked for in mid-2020; \
            devices still accept impressions signed with it); a key on any other curve is refused.
            """
    )

    @Option(help: "Your ad network's P-256 or P-192 private key (PEM: EC PRIVATE KEY or PRIVATE KEY).")
    var key: String

    @Option(help: "CSV file of impressions to sign, one per row.")
    var input: String?

    @Option(help: "Signature version: 1.0, 2.0, 2.1, 2.2, 3.0 or 4.0.")
    var version: String?

    @Option(name: .customLong("ad-network-id"), help: "Your registered ad network id, lowercase.")
    var adNetworkID: String?

    @Option(name: .customLong("campaign-id"), help: "Campaign id 1...100 (versions up to 3.0).")
    var campaignID: String?

    @Option(name: .customLong("source-identifier"), help: "Source identifier of 2 to 4 digits (version 4.0).")
    var sourceIdentifier: String?

    @Option(name: .customLong("itunes-item-id"), help: "The advertised app's App Store id.")
    var itunesItemID: String?

    @Option(name: .customLong("source-app-id"), help: "App Store id of the app showing the ad (0 for development).")
    var sourceAppID: String?

    @Option(name: .customLong("source-domain"), help: "For a 4.0 web ad: the site's registrable domain.")
    var sourceDomain: String?

    @Option(name: .customLong("fidelity-type"), help: "1 StoreKit-rendered (default), 0 view-through (2.2+).")
    var fidelityType: String?

    @Option(help: "Impression nonce, a UUID (default: a new random one). Signed lowercase.")
    var nonce: String?

    @Option(help: "Milliseconds since 1970 (default: now).")
    var timestamp: String?

    @Option(help: "Output shape: storekit, skadimpression or web (default: the one for the ad kind).")
    var format: String?

    @Option(help: "adattributionkit (or aak) signs an AdAttributionKit impression: a compact JWS (ES256, kid = your ad network id).")
    var framework: Framework = .skadnetwork

    @Flag(name: .customLong("eligible-for-re-engagement"), help: "AdAttributionKit: a click may re-engage a user who has the app.")
    var eligibleForReengagement = false

    func validate() throws {
        let single = [version, adNetworkID, campaignID, sourceIdentifier, itunesItemID, sourceAppID, sourceDomain,
                      fidelityType, nonce, timestamp]
        if input != nil && (single.contains { $0 != nil } || eligibleForReengagement) {
            throw ValidationError("--input signs the rows of a CSV file; give impression fields as its columns, not as options")
        }
        if let format, ImpressionFormat(rawValue: format) == nil {
            throw ValidationError("--format must be storekit, skadimpression or web, got \"\(format)\"")
        }
    }

    func run() throws {
        let key = try KeyFiles.privateKey(key, option: "--key")
        let format = self.format.flatMap(ImpressionFormat.init(rawValue:))
        guard let input else {
            // Every option by its field name; the core refuses, by name, one the framework does not take.
            let values = Dictionary(uniqueKeysWithValues: [
                ("version", version), ("ad-network-id", adNetworkID), ("campaign-id", campaignID),
                ("source-identifier", sourceIdentifier), ("itunes-item-id", itunesItemID), ("source-app-id", sourceAppID),
                ("source-domain", sourceDomain), ("fidelity-type", fidelityType), ("nonce", nonce), ("timestamp", timestamp),
                ("eligible-for-re-engagement", eligibleForReengagement ? "true" : nil),
            ].compactMap { name, value in value.map { (name, $0) } })
            print(try sign(ImpressionRequest(framework: framework, values: values, format: format), origin: "--", key: key))
            return
        }
        try signRows(of: input, key: key, format: format)
    }

    /// One impression signed by the core's batch rule, as `skan signer` signs each of a body's.
    private func sign(_ request: ImpressionRequest, origin: String = "", key: ECPrivateKey) throws(CLIError) -> String {
        switch ImpressionBatch.sign([request], origin: origin, keys: { _ in key }) {
        case .success(let signed): signed[0].json
        case .failure(let refusal): throw CLIError(refusal.reason)
        }
    }

    private func signRows(of path: String, key: ECPrivateKey, format: ImpressionFormat?) throws {
        try RecordReader.checkReadable([path])
        let reader: CSVReader
        do {
            // Impression lists are small; reading the text first avoids CSV.swift's stream reader, which
            // reports the end of a file as a read error.
            let text = try String(contentsOfFile: path, encoding: .utf8)
            reader = try CSVReader(string: text, hasHeaderRow: true, trimFields: true)
        } catch {
            throw CLIError("\(path): not a CSV file with a header row (\(error))")
        }
        let header = reader.headerRow ?? []
        let fieldNames = ImpressionRequest.fieldNames(of: framework)
        if let unknown = header.first(where: { !fieldNames.contains($0) }) {
            throw CLIError("\(path): unknown column \"\(unknown)\"; columns are \(fieldNames.joined(separator: ", "))")
        }
        var failures = 0
        var rowNumber = 1
        while let row = reader.next() {
            rowNumber += 1
            let values = Dictionary(zip(header, row).filter { !$0.1.isEmpty }, uniquingKeysWith: { first, _ in first })
            do throws(CLIError) {
                print(try sign(ImpressionRequest(framework: framework, values: values, format: format), key: key))
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("skan: \(path) row \(rowNumber): \(error.message)\n".utf8))
            }
        }
        if let error = reader.error { throw CLIError("\(path) row \(rowNumber + 1): \(error)") }
        if failures > 0 { throw ExitCode.failure }
    }
}

extension Framework: ExpressibleByArgument {
    /// `--framework`: a framework's name, or its alias (`aak`).
    public init?(argument: String) {
        self.init(name: argument)
    }

    public static var allValueStrings: [String] { names }
}
