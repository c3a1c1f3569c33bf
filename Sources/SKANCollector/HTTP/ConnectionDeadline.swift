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
    /// When the connection closes, or `nil` while nothing is timed.
    private var closesAt: NIODeadline?
    /// The one timer and when it fires, which may be before ``closesAt``: a timer that finds the deadline pushed back
    /// sets itself again for it, one that finds nothing timed ends. Re-arming moves ``closesAt`` only, so a request
    /// costs no timer: scheduling and cancelling two per request cost some 5 µs of CPU per postback.
    private var timer: (scheduled: Scheduled<Void>, firesAt: NIODeadline)?

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
        stop()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
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
        let deadline = context.eventLoop.now + timeout
        closesAt = deadline
        if let timer {
            if timer.firesAt <= deadline { return }
            timer.scheduled.cancel()
        }
        setTimer(firingAt: deadline, context: context)
    }

    private func setTimer(firingAt deadline: NIODeadline, context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let scheduled = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            handler.timerFired(context: context)
        }
        timer = (scheduled, deadline)
    }

    private func timerFired(context: ChannelHandlerContext) {
        timer = nil
        guard let closesAt else { return }
        if context.eventLoop.now < closesAt { return setTimer(firingAt: closesAt, context: context) }
        // The whole connection goes: a half-close would leave a socket waiting for a client that stalls.
        context.close(mode: .all, promise: nil)
    }

    private func disarm() {
        closesAt = nil
    }

    /// Disarms and drops the timer: the connection is gone.
    private func stop() {
        closesAt = nil
        timer?.scheduled.cancel()
        timer = nil
    }
}
