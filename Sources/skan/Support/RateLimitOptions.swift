import ArgumentParser
import SKANHTTP

/// The per-client rate limit of a device-facing listener (`skan serve`'s postbacks, `skan signer`'s Safari route),
/// and the proxies whose `X-Forwarded-For` names the client.
struct RateLimitOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Requests a second one client address may make to the device routes, on average; past it they are answered 429 with Retry-After (0: no limit).",
                               valueName: "per-second"))
    var rateLimit: Double = RateLimiter.Configuration().perSecond

    @Option(help: "Requests one client address may make at once before --rate-limit applies.")
    var rateBurst = RateLimiter.Configuration().burst

    @Option(name: .customLong("trusted-proxy"),
            help: ArgumentHelp("A proxy or load balancer (address or CIDR block) whose X-Forwarded-For names the client; the right-most entry that is not a trusted proxy counts. Repeatable.",
                               valueName: "cidr"))
    var trustedProxies: [String] = []

    /// The limit, checked.
    func configuration() throws(CLIError) -> RateLimiter.Configuration {
        guard rateLimit.isFinite, rateLimit >= 0 else {
            throw CLIError("--rate-limit must be 0 (no limit) or a positive number of requests a second, got \(rateLimit)")
        }
        guard rateBurst >= 1 else { throw CLIError("--rate-burst must be at least 1, got \(rateBurst)") }
        return RateLimiter.Configuration(perSecond: rateLimit, burst: rateBurst)
    }

    /// Whose address a request counts against.
    func clientAddress() throws(CLIError) -> ClientAddress {
        do throws(AddressRangeError) {
            return ClientAddress(trustedProxies: try trustedProxies.map { text throws(AddressRangeError) in try AddressRange(text) })
        } catch {
            throw CLIError(error.reason)
        }
    }
}
