import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is too slow: idle too long between requests (or before its first head is
/// complete), or too long sending one request's body. Without it an idle connection, a header sent one byte every
/// five seconds, or a body shorter than its `Content-Length` held a socket and its memory for as long as the
/// client liked.
///
/// It sits first among the HTTP handlers, so it sees every request part read and every response part written,
/// whoever answers (``PostbackResponder`` or the router). While the server owes a response nothing is timed: that
/// wait is the server's own (a commit), not the client's.
final class ConnectionDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let idleTimeout: TimeAmount
    private let requestTimeout: TimeAmount
    /// Requests whose head was read and whose response has not ended.
    private var requestsOpen = 0
    /// A request's head was read and its end not yet.
    private var isReadingRequest = false
    private var deadline: Scheduled<Void>?

    init(idleTimeout: Duration, requestTimeout: Duration) {
        self.idleTimeout = TimeAmount(idleTimeout)
        self.requestTimeout = TimeAmount(requestTimeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(idleTimeout, context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(idleTimeout, context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestsOpen += 1
            isReadingRequest = true
            arm(requestTimeout, context: context)
        case .body:
            break
        case .end:
            isReadingRequest = false
            if requestsOpen == 0 {
                // Answered before it was read whole (a 413 on the router path): nothing more is owed, so the
                // connection is idle from here, and a client that keeps it open is closed as any idle one.
                arm(idleTimeout, context: context)
            } else {
                // Read whole: the server owes the response, and the client may pipeline the next request meanwhile.
                disarm()
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            requestsOpen = max(0, requestsOpen - 1)
            // A response may end before its request was read whole (a 413): the body's deadline still runs.
            if requestsOpen == 0 && !isReadingRequest { arm(idleTimeout, context: context) }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ timeout: TimeAmount, context: ChannelHandlerContext) {
        disarm()
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            // The whole connection goes: a half-close would leave a socket waiting for a client that stalls.
            bound.value.close(mode: .all, promise: nil)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
