import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import SKANCore
import SKANHTTP
import SKANStore
import UnixSignals

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
                now: @escaping @Sendable () -> Date = Date.init, makeNonce: @escaping @Sendable () -> UUID = UUID.random) {
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
        let registry = PrometheusCollectorRegistry()
        let factory = PrometheusMetricsFactory(registry: registry)
        self.registry = registry
        signed = Counter(label: "skan_impressions_signed_total", factory: factory)
        refused = Counter(label: "skan_impression_requests_refused_total", factory: factory)
        webAds = webAdStore.map {
            WebAdExchange(store: $0, keys: keys, lifetime: webAdLifetime, maximum: maximumWebAds, now: now,
                          makeNonce: makeNonce)
        }
    }

    /// Adds the signer's routes to `router`, so that it can be mounted on a listener of its own or beside another
    /// private service; that listener applies ``OperatorAccess``'s rule (``OperatorAccessMiddleware``, added first).
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        let (keys, now, makeNonce, registry, signed, refused) = (keys, now, makeNonce, registry, signed, refused)
        router.post(RouterPath(ImpressionResponder.path)) { request, context -> Response in
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: ImpressionResponder.limit)
            } catch is NIOTooManyBytesError {
                Self.count(.tooLarge, signed: signed, refused: refused)
                return Self.json(ImpressionReply.tooLarge.status, ImpressionReply.tooLarge.body)
            }
            let reply = Self.sign(Array(body.readableBytesView), keys: keys, now: now, makeNonce: makeNonce)
            Self.count(reply, signed: signed, refused: refused)
            return Self.json(reply.status, reply.body)
        }
        router.post("/v1/openrtb/skadn") { request, context -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let reply = OpenRTBBid.answer(Array(body.readableBytesView), keys: keys, now: now, makeNonce: makeNonce)
            if reply.status == 204 { return Response(status: .noContent) }
            return Self.json(HTTPResponse.Status(code: reply.status), reply.body)
        }
        if let webAds {
            router.post("/v1/web-ads") { request, _ -> Response in
                let body = try await request.body.collect(upTo: 64 << 10)
                let reply = await webAds.register(Array(body.readableBytesView))
                if reply.status == 200 { signed.increment() } else { refused.increment() }
                return Self.json(HTTPResponse.Status(code: reply.status), reply.body)
            }
        }
        router.get("/v1/keys") { _, _ in Self.json(.ok, keys.publicKeysJSON) }
        router.get("/healthz") { _, _ in Self.json(.ok, #"{"status":"ok"}"#) }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: registry.emitToString())))
        }
    }

    /// Adds the device-facing route, Safari's request for a web ad's signed payload, to `router` (a public
    /// listener of its own, or the collector's).
    public func addPublicRoutes<Context: RequestContext>(to router: Router<Context>) {
        guard let webAds else { return }
        router.post("/.well-known/skadnetwork/get-signed-payload") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 16 << 10)
            let reply = await webAds.signedPayload(Array(body.readableBytesView))
            return Self.json(HTTPResponse.Status(code: reply.status), reply.body)
        }
        router.get("/healthz") { _, _ in Self.json(.ok, #"{"status":"ok"}"#) }
    }

    /// Counts a reply to `POST /v1/impressions` in the metrics, for the router and the event loop alike.
    static func count(_ reply: ImpressionReply, signed: Metrics.Counter, refused: Metrics.Counter) {
        if reply.status == .ok { signed.increment(by: reply.count) } else { refused.increment() }
    }

    /// Signs a body's impressions, or refuses the whole body naming the request and the field.
    static func sign(_ body: [UInt8], keys: SignerKeys, now: () -> Date, makeNonce: () -> UUID) -> ImpressionReply {
        do throws(ImpressionBody.Refusal) {
            let request = try ImpressionBody(body)
            let outputs = try request.sign(keys: keys, now: now, makeNonce: makeNonce).map(\.json)
            return ImpressionReply(status: .ok, body: request.isSingle ? outputs[0] : "[" + outputs.joined(separator: ",") + "]",
                                   count: outputs.count)
        } catch {
            return ImpressionReply(status: .badRequest, body: error.json, count: 0)
        }
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The signing service's HTTP application, not yet running: the routes behind ``access``, and ahead of them,
    /// unless ``answersImpressionsOnEventLoop`` is off, the event-loop handler for `POST /v1/impressions`, which
    /// leaves a request the rule refuses to the router's 401.
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router()
        router.add(middleware: OperatorAccessMiddleware(access))
        addRoutes(to: router)
        let responder = ImpressionResponder(keys: keys, now: now, makeNonce: makeNonce, signed: signed, refused: refused)
        let (onLoop, date, access, door) = (answersImpressionsOnEventLoop, HTTPDate(), access, frontDoor)
        let gate = door.gate("signer")
        // Built per connection: each handler holds one connection's state.
        let handlers: @Sendable () -> [any RemovableChannelHandler] = {
            door.handlers(onLoop ? [EventLoopFastPath(responder, date: date, access: access)] : [])
        }
        return Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: handlers())),
            configuration: door.configuration(address: .hostname(host, port: port), gate: gate),
            onServerRunning: door.running(gate, then: onServerRunning),
            logger: logger)
    }

    /// The public listener's HTTP application (Safari's `get-signed-payload` and `/healthz`), not yet running, or
    /// `nil` without a web-ad store or ``publicPort``.
    public func publicApplication(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> (any Service)? {
        guard let publicPort, webAds != nil else { return nil }
        let router = Router()
        addPublicRoutes(to: router)
        let (door, gate) = (frontDoor, frontDoor.gate("public"))
        return Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: door.handlers())),
            configuration: door.configuration(address: .hostname(publicHost, port: publicPort), gate: gate),
            onServerRunning: door.running(gate, then: onServerRunning),
            logger: logger)
    }

    /// Every service of the signer: its listeners and, with a web-ad store, the sweep of expired ads (which runs
    /// whether or not Safari's listener does, so that registrations expire out of the store either way).
    public func services(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                         onPublicRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> [any Service] {
        var services: [any Service] = [application(onServerRunning: onServerRunning)]
        if let open = publicApplication(onServerRunning: onPublicRunning) { services.append(open) }
        if let webAds {
            services.append(ExpiredWebAds(exchange: webAds, interval: webAdSweepInterval, logger: logger))
        }
        return services
    }

    /// Serves until SIGINT or SIGTERM; `onServerRunning` receives the bound port, `onPublicRunning` the public one.
    public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                    onPublicRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services(onServerRunning: onServerRunning, onPublicRunning: onPublicRunning),
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
