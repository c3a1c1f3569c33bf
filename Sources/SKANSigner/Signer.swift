import Foundation
import Logging
import Metrics
import Prometheus
import SKANCore
import SKANHTTP
import SKANStore

/// The impression signer as an HTTP service (`skan signer`): ad servers post the impressions they are about to
/// serve and get them back signed, by the same rules as `skan sign`, with the network's key held in one place.
///
/// Private: it signs for whoever can reach it, so its signing listener is under ``OperatorAccess``'s rule
/// (loopback by default; any other address only with a token), on the router and the event-loop path alike.
public struct Signer: Sendable {
    /// Web ads registered and not yet expired at most, by default: about 50 MB of signed responses in memory (some
    /// 500 bytes each), and at a day's lifetime more than one a second around the clock.
    public static let defaultMaximumWebAds = 100_000

    /// Where the signing listener binds and who may use it.
    public var access: OperatorAccess
    /// The address it binds.
    public var host: String { access.bindHost }
    /// The port; 0 picks a free one.
    public var port: Int
    /// The keys it signs with.
    public let keys: SignerKeys
    /// The time an impression without a timestamp gets; injected so tests control it.
    public let now: @Sendable () -> Date
    let makeNonce: @Sendable () -> UUID
    let logger: Logger
    let registry: PrometheusCollectorRegistry
    /// Impressions signed, and requests refused, whichever path answered them.
    let signed: Metrics.Counter
    let refused: Metrics.Counter
    /// Whether `POST /v1/impressions` is answered on the event loop that read it (``ImpressionResponder``) rather than
    /// by the router: the same replies, with less machinery per request. Off only to compare the two.
    public var answersImpressionsOnEventLoop = true
    /// The web-ad exchange, when a store for registered ads was given.
    let webAds: WebAdExchange?
    /// How often expired web ads are removed (and the count of registered ones taken again from the store).
    let webAdSweepInterval: Duration
    /// Where Safari's `get-signed-payload` is served (public), when it is.
    public var publicHost: String
    /// Its port; `nil` serves no public listener.
    public var publicPort: Int?
    /// The timeouts and the connection budget of both listeners (``FrontDoor``): a device-facing port without
    /// them is held open by anyone's idle sockets.
    public var frontDoor: FrontDoor
    /// The command-line options that set the two ports, named when one cannot bind (`skan serve` hosts the
    /// signer as `--signer-port`).
    public var portOption = "--port"
    public var publicPortOption = "--public-port"
    /// Where registered web ads are kept, opened by the caller and closed by the service group after the signer's
    /// listeners stopped; `nil` without web ads.
    let webAdStore: (any WebAdStore)?
    /// The per-client limit of Safari's `get-signed-payload` on the public listener, and whose address counts.
    let publicRateLimit: RateLimitRule

    /// A signer holding `keys`.
    ///
    /// With `webAdStore`, `POST /v1/web-ads` registers web ads there for `webAdLifetime` seconds, at most
    /// `maximumWebAds` unexpired at once, and Safari's `POST /.well-known/skadnetwork/get-signed-payload` is served
    /// on `publicHost:publicPort` (device-facing, so never on the signing port). `frontDoor` gives both listeners
    /// their timeouts and connection budget.
    public init(keys: SignerKeys, access: OperatorAccess = .loopback, port: Int = 8081, logger: Logger,
                webAdStore: (any WebAdStore)? = nil, webAdLifetime: TimeInterval = 86_400,
                maximumWebAds: Int = Signer.defaultMaximumWebAds, webAdSweepInterval: Duration = .seconds(60),
                publicHost: String = "0.0.0.0", publicPort: Int? = nil, frontDoor: FrontDoor = FrontDoor(),
                now: @escaping @Sendable () -> Date = Date.init, makeNonce: @escaping @Sendable () -> UUID = UUID.random,
                publicRateLimit: RateLimiter.Configuration = RateLimiter.Configuration(),
                clientAddress: ClientAddress = ClientAddress()) {
        self.keys = keys
        self.access = access
        self.port = port
        self.logger = logger
        self.now = now
        self.makeNonce = makeNonce
        self.publicHost = publicHost
        self.publicPort = publicPort
        self.frontDoor = frontDoor
        self.webAdSweepInterval = webAdSweepInterval
        self.webAdStore = webAdStore
        let registry = PrometheusCollectorRegistry()
        let factory = PrometheusMetricsFactory(registry: registry)
        self.registry = registry
        signed = Counter(label: "skan_impressions_signed_total", factory: factory)
        refused = Counter(label: "skan_impression_requests_refused_total", factory: factory)
        let limited = Counter(label: "skan_requests_rate_limited_total", factory: factory)
        self.publicRateLimit = RateLimitRule(
            limiter: RateLimiter(publicRateLimit, onRefused: { limited.increment() }),
            paths: [Self.signedPayloadPath], clients: clientAddress)
        webAds = webAdStore.map {
            WebAdExchange(store: $0, keys: keys, lifetime: webAdLifetime, maximum: maximumWebAds, now: now,
                          makeNonce: makeNonce)
        }
    }
}
