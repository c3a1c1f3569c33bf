import ArgumentParser
import Foundation
import Logging
import SKANCore
import SKANSigner

/// `skan signer`: signs impressions over HTTP for the network's ad servers.
struct SignerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signer",
        abstract: "Serve impression signing over HTTP (POST /v1/impressions) with your ad network's keys.",
        discussion: """
            POST /v1/impressions takes one request object or an array of up to 1,000, each named as skan sign's \
            long options (version, ad-network-id, campaign-id or source-identifier, itunes-item-id, source-app-id or \
            source-domain, fidelity-type, nonce, timestamp, format; "format": "aak" for an AdAttributionKit impression), \
            and answers what skan sign prints for each, in order; a bad request is a 400 naming its index and field, \
            and nothing is signed. GET /v1/keys lists the public keys, GET /healthz and GET /metrics as the collector. \
            It signs for anyone who can reach it: keep it on loopback or a private network.
            """
    )

    @Option(help: ArgumentHelp("A private key file ([AD-NETWORK-ID=]PEM): with an id, it signs for that network only; without, for any. Repeatable; a later key for the same id replaces the earlier one.",
                               valueName: "[id=]pem"))
    var key: [String]

    @Option(help: "The address to bind (loopback: only this machine's ad servers).")
    var host = "127.0.0.1"

    @Option(help: "The port (0 picks a free one).")
    var port = 8081

    @Option(help: "Log level.")
    var logLevel: LogLevelArgument = .info

    func run() async throws {
        var keys = SignerKeys()
        for argument in key {
            var network: String?
            var path = argument
            if let equals = argument.firstIndex(of: "="), !FileManager.default.fileExists(atPath: argument) {
                network = String(argument[..<equals])
                path = String(argument[argument.index(after: equals)...])
            }
            keys.add(try KeyFiles.privateKeyKeptSecret(path, option: "--key"), network: network)
        }
        let logger = LogSetup.make(label: "skan.signer", level: logLevel.level)
        let host = host
        try await Signer(keys: keys, host: host, port: port, logger: logger).run { port in
            FileHandle.standardOutput.write(Data("skan signer: listening on http://\(host):\(port)\n".utf8))
        }
    }
}
