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
///
/// A client that pipelines (a request read while a reply is owed, or two in one read) is also watched from the
/// kernel's side (``SendProgress``): it is read no further while its window is shut, and once replies have waited in
/// its socket with none of them acknowledged for the write timeout, it is closed, however long the server would take
/// to fill the buffers that make it unwritable. Filling them is the server's pace, not the client's: 300 clients
/// that never read took the admin port's `/healthz` (a database read each) 7.7 s to back up, and lived 8.4 s with a
/// 3 s write timeout; on the dashboards each was answered 731 requests first. Clients that do not pipeline (devices,
/// browsers, probes) are not watched, and cost nothing more per request.
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
    /// A `read` held back while the connection is unwritable, or a pipelining client's window is shut.
    private var readHeld = false
    /// The one timer and when it fires, which may be before the deadlines: a timer that finds them pushed back sets
    /// itself again, one that finds nothing timed ends. Re-arming moves a deadline only, so a request costs no
    /// timer: scheduling and cancelling two per request cost some 5 µs of CPU per postback.
    private var timer: (scheduled: Scheduled<Void>, firesAt: NIODeadline)?
    /// How often a pipelining client's acknowledgements are looked at: an eighth of the write timeout, at most a
    /// second, so that one that stopped is closed at most that much past the write timeout.
    private let progressInterval: TimeAmount
    /// When its socket is next looked at, or `nil` while the connection is not watched.
    private var progressCheck: NIODeadline?
    /// What the client had acknowledged when last looked at, and since when it has not taken more (the first look
    /// that saw it, or when data last went out to its shut window), while replies wait for it.
    private var lastProgress: (acknowledged: UInt64, since: NIODeadline)?
    /// The client pipelines, and its socket is looked at until it has taken everything it was owed.
    private var isWatched = false
    /// The last look found the client's window shut: nothing more is read until a look finds it open.
    private var windowShut = false
    /// Request heads read in this read cycle: a second one means the client pipelines.
    private var headsInRead = 0
    /// How the socket is looked at (``SendProgress/read(_:done:)``).
    private let sendProgress: SendProgress.Reader

    /// A handler for one connection; ``FrontDoor/handlers()`` makes one per connection.
    /// `unsentLimit` bounds the reply bytes a connection may leave unsent before it stops being read, in SwiftNIO's
    /// buffer and the socket's together (`nil`: SwiftNIO's high water mark, 64 KiB, over the kernel's send buffer,
    /// which it grows as it sees fit). `memory` is told when the connection closes with replies backed up.
    public convenience init(idleTimeout: Duration, requestTimeout: Duration, writeTimeout: Duration = .seconds(30),
                            unsentLimit: Int? = nil, memory: MemoryReturn? = nil) {
        self.init(idleTimeout: idleTimeout, requestTimeout: requestTimeout, writeTimeout: writeTimeout,
                  unsentLimit: unsentLimit, memory: memory, sendProgress: SendProgress.read)
    }

    /// A handler that looks at a pipelining client's socket through `sendProgress`.
    package init(idleTimeout: Duration, requestTimeout: Duration, writeTimeout: Duration, unsentLimit: Int?,
                 memory: MemoryReturn?, sendProgress: @escaping SendProgress.Reader) {
        self.sendProgress = sendProgress
        self.idleTimeout = TimeAmount(idleTimeout)
        self.requestTimeout = TimeAmount(requestTimeout)
        self.writeTimeout = TimeAmount(writeTimeout)
        self.unsentLimit = unsentLimit
        self.memory = memory
        progressInterval = .nanoseconds(max(1_000_000, min(1_000_000_000, TimeAmount(writeTimeout).nanoseconds / 8)))
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
            // Asking again before the last answer was written, or twice in one read: pipelining, which a client that
            // never reads needs to make the server write to it at all.
            if requestsOpen > 0 || headsInRead > 0 { watchProgress(context: context) }
            headsInRead += 1
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

    public func channelReadComplete(context: ChannelHandlerContext) {
        headsInRead = 0
        context.fireChannelReadComplete()
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
            releaseRead(context: context)
        } else if writeDeadline == nil {
            let deadline = context.eventLoop.now + writeTimeout
            writeDeadline = deadline
            schedule(deadline, context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    public func read(context: ChannelHandlerContext) {
        // Whoever asks (the router's channel, a fast path resuming), nothing more is read while replies back up.
        if writeDeadline != nil || windowShut {
            readHeld = true
        } else if isWatched {
            // A pipelining client is read on only while it takes its replies: once its window is shut, what it
            // sends is not read (and answered) until it reads, rather than until the server's buffers are full.
            readHeld = true
            lookAtProgress(context: context)
        } else {
            context.read()
        }
    }

    /// Lets a held `read` through once nothing holds it.
    private func releaseRead(context: ChannelHandlerContext) {
        guard readHeld, writeDeadline == nil, !windowShut else { return }
        readHeld = false
        context.read()
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
        let now = context.eventLoop.now
        if let check = progressCheck, check <= now {
            progressCheck = nil
            lookAtProgress(context: context)
        }
        if let closesAt = [readDeadline, writeDeadline, drainDeadline].compactMap({ $0 }).min(), closesAt <= now {
            return close(notReading: closesAt != readDeadline, context: context)
        }
        if let next = [readDeadline, writeDeadline, drainDeadline, progressCheck].compactMap({ $0 }).min() {
            schedule(next, context: context)
        }
    }

    /// Closes the connection; `notReading`: for replies the client did not take.
    private func close(notReading: Bool, context: ChannelHandlerContext) {
        if notReading {
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

    // MARK: Watching a pipelining client

    /// Starts looking at the client's acknowledgements, unless a look is already due.
    private func watchProgress(context: ChannelHandlerContext) {
        isWatched = true
        guard progressCheck == nil else { return }
        let check = context.eventLoop.now + progressInterval
        progressCheck = check
        schedule(check, context: context)
    }

    private func lookAtProgress(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        sendProgress(context.channel) { progress in
            let (handler, context) = bound.value
            handler.progressRead(progress, context: context)
        }
    }

    /// Closes the connection when replies have waited for the client with nothing acknowledged for the write
    /// timeout; otherwise looks again, while replies wait or are owed.
    private func progressRead(_ progress: SendProgress?, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        guard let progress else {
            // Nothing to read (not Linux, not TCP): writability alone says when the client stopped.
            isWatched = false
            windowShut = false
            return releaseRead(context: context)
        }
        let now = context.eventLoop.now
        windowShut = progress.windowShutFor != nil
        releaseRead(context: context)
        let next: NIODeadline
        if !progress.waiting {
            // The client took everything so far; while responses are still owed, more will wait for it.
            lastProgress = nil
            guard requestsOpen > 0 else {
                isWatched = false
                return
            }
            next = now + progressInterval
        } else if let last = lastProgress, last.acknowledged == progress.acknowledged {
            // Nothing taken since the last look. With its window shut, the client took its last bytes when data
            // last went out, which may be well before the first look that saw it stop.
            let since = min(last.since, progress.windowShutFor.map { now - $0 } ?? last.since)
            lastProgress = (last.acknowledged, since)
            if now - since >= writeTimeout { return close(notReading: true, context: context) }
            next = min(now + progressInterval, since + writeTimeout)
        } else {
            lastProgress = (progress.acknowledged, now)
            next = now + progressInterval
        }
        if let progressCheck, progressCheck <= next { return }
        progressCheck = next
        schedule(next, context: context)
    }

    /// Disarms and drops the timer: the connection is gone.
    private func stop() {
        readDeadline = nil
        writeDeadline = nil
        drainDeadline = nil
        progressCheck = nil
        lastProgress = nil
        isWatched = false
        windowShut = false
        timer?.scheduled.cancel()
        timer = nil
    }
}
