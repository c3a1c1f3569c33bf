import Hummingbird
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// A device-facing listener's rate limit: which paths it covers, the limiter, and whose address counts.
///
/// It is applied by ``RateLimitGate``, a channel handler ahead of both the event-loop fast path and the router, so
/// neither can be the way around it. A request past its client's budget is not answered there (a pipelined request
/// must wait for the ones before it): its path is rewritten to ``refusedPath``, which no fast path takes and
/// ``RateLimitMiddleware`` answers 429 with `Retry-After`, in order, on the router.
public struct RateLimitRule: Sendable {
    /// The limiter shared by the listener's connections.
    public let limiter: RateLimiter
    /// The limited paths, as ``RoutePath/normalized(_:)`` gives them; every other path (probes, `/healthz`) is not.
    public let paths: Set<String>
    /// Whose address a request counts against.
    public let clients: ClientAddress

    /// A rule limiting `paths` by `limiter`, per client as `clients` resolves them.
    public init(limiter: RateLimiter, paths: some Sequence<String>, clients: ClientAddress) {
        self.limiter = limiter
        self.paths = Set(paths.map { RoutePath.normalized($0) })
        self.clients = clients
    }

    /// Where a refused request is sent, with its wait as the query: an internal path.
    static let refusedPath = "/.skan/rate-limited"
}

/// Counts each request on a limited path against its client (``RateLimitRule``) and marks the refused ones.
final class RateLimitGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let rule: RateLimitRule
    /// The connection's peer, read once.
    private var peer: IPAddress??

    init(_ rule: RateLimitRule) {
        self.rule = rule
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), let path = head.path,
              rule.paths.contains(RoutePath.normalized(path)) else {
            return context.fireChannelRead(data)
        }
        if peer == nil { peer = .some(IPAddress(context.channel.remoteAddress)) }
        let client = rule.clients.resolve(peer: peer ?? nil, forwardedFor: head.headerFields[values: .xForwardedFor])
        guard let client, case .refused(let retryAfter) = rule.limiter.admit(client) else {
            return context.fireChannelRead(data)
        }
        head.path = RateLimitRule.refusedPath + "?retry-after=\(retryAfter)"
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}

extension HTTPField.Name {
    /// `X-Forwarded-For`: the addresses a request passed through, the nearest last.
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}

/// Answers the requests ``RateLimitGate`` refused: 429 with `Retry-After`, in the order the connection sent them.
struct RateLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response {
        guard request.uri.path == RateLimitRule.refusedPath else { return try await next(request, context) }
        let retryAfter = request.uri.queryParameters.get("retry-after").flatMap(Int.init) ?? 1
        return Response(status: .tooManyRequests,
                        headers: [.contentType: "application/json", .retryAfter: String(retryAfter)],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"status":"rate-limited","reason":"too many requests from this address; retry after \#(retryAfter) s"}"#)))
    }
}
