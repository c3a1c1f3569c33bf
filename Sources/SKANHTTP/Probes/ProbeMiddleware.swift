import Hummingbird
import NIOCore

/// The probes every listener of a ``ServiceComposition`` answers, ahead of its access rule and its routes:
/// `GET /livez` (200 while the process serves) and `GET /readyz` (200 when ``Readiness`` says ready, else 503 with
/// the reason). They tell a load balancer or an orchestrator the phase and nothing else, so a private listener
/// answers them without a token: kubelet probes come from the node, not from loopback.
public struct ProbeMiddleware<Context: RequestContext>: RouterMiddleware {
    let readiness: Readiness

    /// Probes answered from `readiness`.
    public init(_ readiness: Readiness) {
        self.readiness = readiness
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response {
        guard request.method == .get || request.method == .head else { return try await next(request, context) }
        switch request.uri.path {
        case Probe.liveness:
            return Probe.response(Probe.alive)
        case Probe.readiness:
            return Probe.response(Probe.answer(await readiness.problem()))
        default:
            return try await next(request, context)
        }
    }
}

/// The probes' paths and replies, shared by ``ProbeMiddleware`` and ``StartupGate``.
enum Probe {
    static let liveness = "/livez"
    static let readiness = "/readyz"

    /// `/livez`'s reply: the process serves.
    static let alive = (status: HTTPResponse.Status.ok, body: #"{"status":"ok"}"#)

    /// `/readyz`'s reply for `problem` (`nil`: ready).
    static func answer(_ problem: String?) -> (status: HTTPResponse.Status, body: String) {
        guard let problem else { return (.ok, #"{"status":"ready"}"#) }
        return (.serviceUnavailable, #"{"status":"unavailable","reason":""# + problem + #""}"#)
    }

    static func response(_ reply: (status: HTTPResponse.Status, body: String)) -> Response {
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if reply.status == .serviceUnavailable { headers[.retryAfter] = "1" }
        return Response(status: reply.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: reply.body)))
    }
}
