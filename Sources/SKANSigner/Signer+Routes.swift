import Hummingbird
import Metrics
import NIOCore
import Prometheus
import SKANCore

extension Signer {
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
        router.post(RouterPath(Self.signedPayloadPath)) { request, _ -> Response in
            let body = try await request.body.collect(upTo: 16 << 10)
            let reply = await webAds.signedPayload(Array(body.readableBytesView))
            return Self.json(HTTPResponse.Status(code: reply.status), reply.body)
        }
        router.get("/healthz") { _, _ in Self.json(.ok, #"{"status":"ok"}"#) }
    }

    /// Safari's request for a web ad's signed payload: the public listener's one device route.
    public static let signedPayloadPath = "/.well-known/skadnetwork/get-signed-payload"

    /// Counts a reply to `POST /v1/impressions` in the metrics, for the router and the event loop alike.
    static func count(_ reply: ImpressionReply, signed: Metrics.Counter, refused: Metrics.Counter) {
        if reply.status == .ok { signed.increment(by: reply.count) } else { refused.increment() }
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
