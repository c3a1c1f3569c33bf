import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers every request on a connection accepted while the process starts (its listeners bound, its migrations
/// still running): `GET /livez` 200, anything else 503 with `Retry-After`, then closes the connection. Ahead of the
/// event-loop fast paths and the router, so that no postback meets a schema not yet migrated, whichever of the two
/// would have answered it.
///
/// It steps out of the pipeline at the first request that arrives once the process is ready, so a connection
/// costs nothing for it afterwards; connections accepted once ready never get it (``FrontDoor``).
final class StartupGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let readiness: Readiness
    /// A request was answered here: the rest of it is dropped, and the connection closes at its end.
    private var answered = false
    /// The reply's write, which the close waits for (NIO's close drops writes still pending).
    private var written: EventLoopFuture<Void>?

    init(_ readiness: Readiness) {
        self.readiness = readiness
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if answered {
            if case .end = part {
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                (written ?? context.eventLoop.makeSucceededVoidFuture()).whenComplete { _ in bound.value.close(promise: nil) }
            }
            return
        }
        guard case .head(let head) = part, readiness.current == .starting else {
            // Ready (or draining): the request goes on to the fast path or the router, and this gate leaves.
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        answered = true
        let alive = head.method == .get && head.path == Probe.liveness
        let (status, body) = alive ? Probe.alive : Probe.answer("starting")
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.contentLength] = String(body.utf8.count)
        fields[.cacheControl] = "no-store"
        fields[.connection] = "close"
        if !alive { fields[.retryAfter] = "1" }
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(string: body))), promise: nil)
        written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
    }
}
