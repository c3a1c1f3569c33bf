import ArgumentParser
import Foundation
import Logging
import SKANCore
import SKANHTTP
import SKANSigner
import SKANStore

/// `skan signer`: signs impressions over HTTP for the network's ad servers.
struct SignerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signer",
        abstract: "Serve impression signing over HTTP (POST /v1/impressions) with your ad network's keys.",
        discussion: """
            POST /v1/impressions takes one request object or an array of up to 1,000, each named as skan sign's \
            long options (version, ad-network-id, campaign-id or source-identifier, itunes-item-id, source-app-id or \
            source-domain, fidelity-type, nonce, timestamp, format; "framework": "adattributionkit" for an AdAttributionKit \
            impression, which "format": "aak" still means for this release), \
            and answers what skan sign prints for each, in order; a bad request is a 400 naming its index and field, \
            and nothing is signed. GET /v1/keys lists the public keys, GET /healthz and GET /metrics as the collector. \
            It signs for anyone who can reach it: on an address other than loopback it refuses to start without \
            --token-file, and then every request needs Authorization: Bearer TOKEN. \
            Web ads: POST /v1/web-ads registers a 4.0 web ad (ad-network-id, source-identifier, itunes-item-id, \
            source-domain) and returns its nonce for the ad link; Safari's POST \
            /.well-known/skadnetwork/get-signed-payload is answered on --public-port (device-facing) from the store \
            (--db; without it, memory, lost on restart) until --web-ad-ttl has passed.
            """
    )

    @Option(help: ArgumentHelp("A private key file ([AD-NETWORK-ID=]PEM): with an id, it signs for that network only; without, for any. Repeatable; a later key for the same id replaces the earlier one.",
                               valueName: "[id=]pem"))
    var key: [String]

    @Option(help: "The address to bind (loopback: only this machine's ad servers; any other needs --token-file).")
    var host = "127.0.0.1"

    @Option(help: "A file whose first line is the bearer token every signing request must carry (mode 600; required off loopback).")
    var tokenFile: String?

    @Option(help: "The port (0 picks a free one).")
    var port = 8081

    @Option(help: "Where registered web ads are kept: a SQLite file or a postgres:// URL (default: memory, lost on restart).")
    var db: String?

    @Option(help: "The port for Safari's get-signed-payload requests (device-facing; none when not given).")
    var publicPort: Int?

    @Option(help: "The address of the public listener.")
    var publicHost = "0.0.0.0"

    @Option(help: "Seconds a registered web ad is served to Safari.")
    var webAdTtl = 86_400

    @Option(help: "Web ads registered and not yet expired at most; past it POST /v1/web-ads answers 503 until some expire.")
    var maxWebAds = Signer.defaultMaximumWebAds

    @Option(help: "Log level.")
    var logLevel: LogLevelArgument = .info

    @OptionGroup var listener: ListenerOptions

    @OptionGroup var deployment: DeploymentOptions

    @OptionGroup var limits: RateLimitOptions

    @Flag(help: "Answer POST /v1/impressions through Hummingbird's router instead of on the event loop that read it (same replies; slower; for comparison).")
    var impressionsViaRouter = false

    func run() async throws {
        let keys = try SignerKeys.load(key, option: "--key")
        let access = try ServeCommand.access(host: host, tokenFile: tokenFile,
                                             options: .init(host: "--host", tokenFile: "--token-file"))
        let logger = LogSetup.make(label: "skan.signer", level: logLevel.level)
        guard webAdTtl > 0 else { throw CLIError("--web-ad-ttl must be a positive number of seconds, got \(webAdTtl)") }
        guard maxWebAds > 0 else { throw CLIError("--max-web-ads must be at least 1, got \(maxWebAds)") }
        let frontDoor = try listener.frontDoor(logger: logger)
        let (rateLimit, clients) = (try limits.configuration(), try limits.clientAddress())
        // Both ports are tried before the web-ad store is opened: a busy port leaves no database file behind.
        var probes: [Listener] = [.device("signer", option: "--port", host: access.bindHost, port: port) { _ in }]
        if let publicPort {
            probes.append(.device("public", option: "--public-port", host: publicHost, port: publicPort) { _ in })
        }
        do {
            try await ListenerProbe.check(probes)
        } catch {
            throw CLIError(error.reason, exitCode: .failure)
        }
        // Migrated before the listeners bind and closed after they stop, by the signer's service group.
        let store: any WebAdStore = try db.map { text throws(CLIError) in try StoreLocation(text).openWebAdStore() } ?? MemoryWebAdStore()
        let (host, publicHost) = (host, publicHost)
        var signer = Signer(keys: keys, access: access, port: port, logger: logger, webAdStore: store,
                            webAdLifetime: TimeInterval(webAdTtl), maximumWebAds: maxWebAds, publicHost: publicHost,
                            publicPort: publicPort, frontDoor: frontDoor,
                            publicRateLimit: rateLimit, clientAddress: clients)
        signer.answersImpressionsOnEventLoop = !impressionsViaRouter
        do {
            // Once every listener is bound, private first.
            try await signer.run { bound in
                var text = "skan signer: listening on http://\(host):\(bound["signer"] ?? 0)\n"
                if let open = bound["public"] { text += "skan signer: web-ad payloads for Safari on http://\(publicHost):\(open)\n" }
                FileHandle.standardOutput.write(Data(text.utf8))
            }
        } catch let error as ListenerError {
            throw CLIError(error.reason, exitCode: .failure)
        } catch let error as StoreError {
            throw CLIError("--db: \(error.reason)", exitCode: .failure)
        }
    }
}
