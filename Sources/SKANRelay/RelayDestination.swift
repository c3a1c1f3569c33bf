import Foundation
import SKANCore

/// One partner the relay sends postbacks to: where, which ones, in what shape, and how hard to try.
public struct RelayDestination: Sendable, Hashable {
    /// Unique within a configuration; names the destination in the outbox, the metrics and `skan relay`.
    public var name: String
    /// Where postbacks are `POST`ed: `http` or `https`, with a host.
    public var url: URL
    /// Which postbacks go there.
    public var filter: RelayFilter
    /// What is sent.
    public var body: RelayBody
    /// Headers added to every request (values read from files at start, never logged).
    public var headers: [RelayHeader]
    /// The HMAC-SHA256 signature of the body, when one is wanted.
    public var signature: RelaySignature?
    /// Requests in flight at most.
    public var inFlight: Int
    /// How long one attempt may take.
    public var timeout: Duration
    /// How long after it was queued a postback is still retried; then it is a dead letter. Default 7 days (a device
    /// retries for 9).
    public var maximumAge: Duration
    /// Attempts answered with a 4xx other than 408 and 429 before the entry is a dead letter.
    public var deadAfter: Int
    /// How long a claimed batch stays this collector's before another may send it: a collector killed during
    /// delivery leaves its batch for this long. Longer than one attempt can take (two timeouts): no request of a
    /// batch starts later than two timeouts before its lease ends. By default two timeouts plus 15 s.
    public var lease: Duration

    /// The lease when none is given: two timeouts plus 15 s.
    public static func defaultLease(timeout: Duration) -> Duration { timeout * 2 + .seconds(15) }

    /// Makes a destination that takes every postback as received.
    public init(name: String, url: URL, filter: RelayFilter = RelayFilter(), body: RelayBody = .received,
                headers: [RelayHeader] = [], signature: RelaySignature? = nil, inFlight: Int = 8,
                timeout: Duration = .seconds(10), maximumAge: Duration = .seconds(7 * 86_400), deadAfter: Int = 3,
                lease: Duration? = nil) {
        self.name = name
        self.url = url
        self.filter = filter
        self.body = body
        self.headers = headers
        self.signature = signature
        self.inFlight = inFlight
        self.timeout = timeout
        self.maximumAge = maximumAge
        self.deadAfter = deadAfter
        self.lease = lease ?? Self.defaultLease(timeout: timeout)
    }
}

/// A header added to a destination's requests.
public struct RelayHeader: Sendable, Hashable {
    /// Its name.
    public var name: String
    /// Its value (a secret, when read from a file: never logged).
    public var value: String

    /// Makes a header.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Which postbacks a destination takes; an empty list allows every value.
public struct RelayFilter: Sendable, Hashable {
    /// The frameworks taken.
    public var frameworks: Set<Framework> = []
    /// The ad network ids taken.
    public var adNetworkIDs: Set<String> = []
    /// The advertised app ids taken.
    public var appIDs: Set<Int> = []
    /// Which copies: winning, non-winning, developer.
    public var copies: Set<RelayCopy> = []
    /// The paths the postback arrived on.
    public var paths: Set<String> = []

    /// Makes a filter.
    public init(frameworks: Set<Framework> = [], adNetworkIDs: Set<String> = [], appIDs: Set<Int> = [],
                copies: Set<RelayCopy> = [], paths: Set<String> = []) {
        self.frameworks = frameworks
        self.adNetworkIDs = adNetworkIDs
        self.appIDs = appIDs
        self.copies = copies
        self.paths = paths
    }
}

/// Which copy of a postback one is: the winning ad network's, a non-winning one's, or the advertiser's (Apple's
/// developer copy, which arrives on a `/.well-known/…/report-attribution/` path).
public enum RelayCopy: String, Sendable, Hashable, CaseIterable {
    case winning
    case nonWinning = "non-winning"
    case developer
}

/// What a destination receives.
public enum RelayBody: Sendable, Hashable {
    /// The bytes as received.
    case received
    /// The received JSON object with these members added.
    case json(adding: [RelayExtra])
}

/// A member the relay can add to a forwarded postback.
public enum RelayExtra: String, Sendable, Hashable, CaseIterable {
    /// When the collector received it, ISO 8601 UTC.
    case receivedAt = "received-at"
    /// The device's address: the peer's, or from `X-Forwarded-For` when the peer is a trusted proxy.
    case ipAddress = "ip-address"
    /// The request's `User-Agent`.
    case userAgent = "user-agent"
}

/// An HMAC-SHA256 of the body, hex, in a header.
public struct RelaySignature: Sendable, Hashable {
    /// The header that carries it.
    public var header: String
    /// The key.
    public var secret: [UInt8]

    /// Makes a signature rule.
    public init(header: String, secret: [UInt8]) {
        self.header = header
        self.secret = secret
    }
}
