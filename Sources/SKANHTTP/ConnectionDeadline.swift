#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is too slow: idle too long between requests (or before its first head is
/// complete), too long sending one request's body, or too long draining the replies it asked for. Without it an
/// idle connection, a header sent one byte every five seconds, a body shorter than its `Content-Length`, or a client
/// that pipelines requests and never reads the replies held a socket and its memory for as long as the client liked.
///
/// It sits first among the HTTP handlers of every listener (``FrontDoor/handlers()``), so it sees every request part
/// read and every response part written, whoever answers (an ``EventLoopFastPath`` or the router). While the server
/// owes a response the read deadlines do not run: that wait is the server's own (a commit), not the client's.
///
/// Replies the client does not drain: once the connection's unsent bytes pass its high water mark the channel turns
/// unwritable, and then nothing more is read (the `read` is held back here, whoever asks for it) until the client
/// takes some, so a client cannot make the server answer, and buffer, without end; and if it stays unwritable for
/// the write timeout the connection closes, dropping what it had not taken.
public final class ConnectionDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    private let idleTimeout: TimeAmount
    private let requestTimeout: TimeAmount
    private let writeTimeout: TimeAmount
    /// The unsent reply bytes past which the connection turns unwritable, SwiftNIO's and the kernel's together, or
    /// `nil` for SwiftNIO's 64 KiB over the kernel's own buffer.
    private let unsentLimit: Int?
    /// Told when the connection closes with its replies backed up, so that their memory goes back to the system.
    private let memory: MemoryReturn?
    /// Closed for not reading its replies: what it held is freed with it.
    private var closedBackedUp = false
    /// Requests whose head was read and whose response has not ended.
    private var requestsOpen = 0
    /// A request's head was read and its end not yet.
    private var isReadingRequest = false
    /// When the connection closes for the client's slowness in sending, or `nil` while that is not timed.
    private var readDeadline: NIODeadline?
    /// When the connection closes for replies not drained, or `nil` while it is writable.
    private var writeDeadline: NIODeadline?
    /// Responses whose end was written and not yet handed to the socket.
    private var undrained = 0
    /// When the connection closes because the oldest of those has waited the write timeout, or `nil` when none
    /// waits. A connection can stay writable with a reply stuck (one small reply backed up, and a router that waits
    /// for it before reading on), so writability alone cannot say a client stopped reading.
    private var drainDeadline: NIODeadline?
    /// A `read` held back while the connection is unwritable.
    private var readHeld = false
    /// The one timer and when it fires, which may be before the deadlines: a timer that finds them pushed back sets
    /// itself again, one that finds nothing timed ends. Re-arming moves a deadline only, so a request costs no
    /// timer: scheduling and cancelling two per request cost some 5 µs of CPU per postback.
    private var timer: (scheduled: Scheduled<Void>, firesAt: NIODeadline)?

    /// A handler for one connection; ``FrontDoor/handlers()`` makes one per connection.
    /// `unsentLimit` bounds the reply bytes a connection may leave unsent before it stops being read, in SwiftNIO's
    /// buffer and the socket's together (`nil`: SwiftNIO's high water mark, 64 KiB, over the kernel's send buffer,
    /// which it grows as it sees fit). `memory` is told when the connection closes with replies backed up.
    public init(idleTimeout: Duration, requestTimeout: Duration, writeTimeout: Duration = .seconds(30),
                unsentLimit: Int? = nil, memory: MemoryReturn? = nil) {
        self.idleTimeout = TimeAmount(idleTimeout)
        self.requestTimeout = TimeAmount(requestTimeout)
        self.writeTimeout = TimeAmount(writeTimeout)
        self.unsentLimit = unsentLimit
        self.memory = memory
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        if let unsentLimit, let options = context.channel.syncOptions {
            // Half in SwiftNIO's buffer, half in the kernel's: the kernel would otherwise grow a socket's send buffer
            // to megabytes (net.ipv4.tcp_wmem) before SwiftNIO saw a byte it could not pass on.
            let marks = ChannelOptions.Types.WriteBufferWaterMark(low: max(1, unsentLimit / 4), high: max(2, unsentLimit / 2))
            try? options.setOption(ChannelOptions.writeBufferWaterMark, value: marks)
            try? options.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(max(1, unsentLimit / 2)))
            // One receive of at most 16 KiB per read cycle, not SwiftNIO's four of up to 64 KiB: everything read is
            // decoded and answered (or queued for the router) before a held read can stop the next, so a cycle
            // bounds what a pipelining client that never reads makes the server hold at once (some 300 requests,
            // not 4,000). A postback or an impression request is well under it.
            try? options.setOption(ChannelOptions.maxMessagesPerRead, value: 1)
            try? options.setOption(ChannelOptions.recvAllocator,
                                   value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 16 << 10))
        }
        if context.channel.isActive { armRead(idleTimeout, context: context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        armRead(idleTimeout, context: context)
        context.fireChannelActive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        // Closed for not reading, or gone while unwritable: replies (and, on the router's path, the requests read
        // ahead of them) were held for it, which the allocator would otherwise keep once freed.
        if closedBackedUp || writeDeadline != nil { memory?.released(on: context.eventLoop) }
        stop()
        context.fireChannelInactive()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestsOpen += 1
            isReadingRequest = true
            armRead(requestTimeout, context: context)
        case .body:
            break
        case .end:
            isReadingRequest = false
            if requestsOpen == 0 {
                // Answered before it was read whole (a 413 on the router path): nothing more is owed, so the
                // connection is idle from here, and a client that keeps it open is closed as any idle one.
                armRead(idleTimeout, context: context)
            } else {
                // Read whole: the server owes the response, and the client may pipeline the next request meanwhile.
                readDeadline = nil
            }
        }
        context.fireChannelRead(data)
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        requestsOpen = max(0, requestsOpen - 1)
        // A response may end before its request was read whole (a 413): the body's deadline still runs.
        if requestsOpen == 0 && !isReadingRequest { armRead(idleTimeout, context: context) }
        undrained += 1
        if drainDeadline == nil {
            let deadline = context.eventLoop.now + writeTimeout
            drainDeadline = deadline
            schedule(deadline, context: context)
        }
        let written = promise ?? context.eventLoop.makePromise(of: Void.self)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in
            let (handler, context) = bound.value
            handler.drained(context: context)
        }
        context.write(data, promise: written)
    }

    /// A response's end reached the socket: the wait starts again for the next one still queued, if any.
    private func drained(context: ChannelHandlerContext) {
        undrained = max(0, undrained - 1)
        drainDeadline = undrained == 0 ? nil : context.eventLoop.now + writeTimeout
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            writeDeadline = nil
            if readHeld {
                readHeld = false
                context.read()
            }
        } else if writeDeadline == nil {
            let deadline = context.eventLoop.now + writeTimeout
            writeDeadline = deadline
            schedule(deadline, context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    public func read(context: ChannelHandlerContext) {
        // Whoever asks (the router's channel, a fast path resuming), nothing more is read while replies back up.
        if writeDeadline != nil {
            readHeld = true
        } else {
            context.read()
        }
    }

    private func armRead(_ timeout: TimeAmount, context: ChannelHandlerContext) {
        let deadline = context.eventLoop.now + timeout
        readDeadline = deadline
        schedule(deadline, context: context)
    }

    /// Makes sure the timer fires no later than `deadline`.
    private func schedule(_ deadline: NIODeadline, context: ChannelHandlerContext) {
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
        guard let closesAt = [readDeadline, writeDeadline, drainDeadline].compactMap({ $0 }).min() else { return }
        if context.eventLoop.now < closesAt { return setTimer(firingAt: closesAt, context: context) }
        if closesAt != readDeadline {
            // A client that does not read: reset rather than close, so that the kernel drops the replies queued for
            // it at once (a FIN would wait behind them, holding the socket and its buffer for as long as the client
            // keeps its window shut) and the client learns of it on its next send.
            _ = (context.channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            closedBackedUp = true
        }
        // The whole connection goes, and with it the replies it never took: a half-close would leave a socket
        // waiting for a client that stalls.
        context.close(mode: .all, promise: nil)
    }

    /// Disarms and drops the timer: the connection is gone.
    private func stop() {
        readDeadline = nil
        writeDeadline = nil
        drainDeadline = nil
        timer?.scheduled.cancel()
        timer = nil
    }
}
