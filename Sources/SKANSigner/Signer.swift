import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import SKANCore
import UnixSignals

/// The impression signer as an HTTP service (`skan signer`): ad servers post the impressions they are about to
/// serve and get them back signed, by the same rules as `skan sign`, with the network's key held in one place.
///
/// Private: it signs for whoever can reach it, so it listens on loopback by default.
public struct Signer: Sendable {
    /// Where it listens.
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int
    /// The keys it signs with.
    public let keys: SignerKeys
    /// The time an impression without a timestamp gets; injected so tests control it.
    public let now: @Sendable () -> Date
    let makeNonce: @Sendable () -> UUID
    let logger: Logger
    let registry = PrometheusCollectorRegistry()

    /// A signer holding `keys`.
    public init(keys: SignerKeys, host: String = "127.0.0.1", port: Int = 8081, logger: Logger,
                now: @escaping @Sendable () -> Date = Date.init, makeNonce: @escaping @Sendable () -> UUID = UUID.init) {
        self.keys = keys
        self.host = host
        self.port = port
        self.logger = logger
        self.now = now
        self.makeNonce = makeNonce
    }

    /// Adds the signer's routes to `router`, so that it can be mounted on a listener of its own or beside another
    /// private service.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        let factory = PrometheusMetricsFactory(registry: registry)
        let signed = Counter(label: "skan_impressions_signed_total", factory: factory)
        let refused = Counter(label: "skan_impression_requests_refused_total", factory: factory)
        let (keys, now, makeNonce, registry) = (keys, now, makeNonce, registry)
        router.post("/v1/impressions") { request, context -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let reply = Self.sign(Array(body.readableBytesView), keys: keys, now: now, makeNonce: makeNonce)
            if reply.status == .ok { signed.increment(by: reply.count) } else { refused.increment() }
            return Self.json(reply.status, reply.body)
        }
        router.post("/v1/openrtb/skadn") { request, context -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let reply = OpenRTBBid.answer(Array(body.readableBytesView), keys: keys, now: now, makeNonce: makeNonce)
            if reply.status == 204 { return Response(status: .noContent) }
            return Self.json(HTTPResponse.Status(code: reply.status), reply.body)
        }
        router.get("/v1/keys") { _, _ in Self.json(.ok, keys.publicKeysJSON) }
        router.get("/healthz") { _, _ in Self.json(.ok, #"{"status":"ok"}"#) }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: registry.emitToString())))
        }
    }

    /// Signs a body's impressions, or refuses the whole body naming the request and the field.
    static func sign(_ body: [UInt8], keys: SignerKeys, now: () -> Date, makeNonce: () -> UUID)
        -> (status: HTTPResponse.Status, body: String, count: Int) {
        do throws(ImpressionBatch.Refusal) {
            let batch = try ImpressionBatch(body, now: now, makeNonce: makeNonce)
            // Every key is found before anything is signed: nothing comes back half-signed.
            var signers: [ECPrivateKey] = []
            for (index, item) in batch.items.enumerated() {
                guard let key = keys.key(for: item.network) else {
                    throw ImpressionBatch.Refusal(index: batch.isSingle ? nil : index,
                                                  reason: "ad-network-id \(JSONWriter.quoted(Excerpt.of(item.network, maximumBytes: 80))) has no key in this signer")
                }
                signers.append(key)
            }
            var outputs: [String] = []
            for (index, (item, key)) in zip(batch.items, signers).enumerated() {
                do throws(SKANError) {
                    switch item {
                    case .skadnetwork(let impression, let format):
                        outputs.append(try ImpressionSigner(key: key).sign(impression).json(format))
                    case .adAttributionKit(let impression):
                        var writer = JSONWriter()
                        writer.string("jws", try impression.signed(with: key))
                        outputs.append(writer.json)
                    }
                } catch {
                    // Checked above; what remains is a key that cannot sign (a P-192 key for ES256).
                    throw ImpressionBatch.Refusal(index: batch.isSingle ? nil : index, reason: error.reason)
                }
            }
            return (.ok, batch.isSingle ? outputs[0] : "[" + outputs.joined(separator: ",") + "]", outputs.count)
        } catch {
            return (.badRequest, error.json, 0)
        }
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// Serves until SIGINT or SIGTERM; `onServerRunning` receives the bound port.
    public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let router = Router()
        addRoutes(to: router)
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
