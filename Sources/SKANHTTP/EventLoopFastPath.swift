import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers the requests its ``EventLoopResponder`` takes on the connection's event loop, ahead of Hummingbird's
/// router; every other request passes through to the router untouched.
///
/// Why: for a request that costs one ECDSA operation (a postback verified, an impression signed), Hummingbird's
/// per-request machinery (a request stream, a response writer, the hops between the event loop and Swift's task
/// pool and back) costs about as much again on a two-core machine. Here the request is read and answered on the
/// event loop that read it (a postback when its transaction commits): no hop for a signature, two instead of six
/// for a postback. Replies and metrics are the responder's, which are the router's own, and the router still serves
/// these routes when this handler is not installed or steps aside (below).
///
/// HTTP/1.1 ordering is kept: while a request waits for its answer, later requests pipelined on the connection
/// wait unread (reads are held, and parts already read are queued and replayed after the reply); a request that
/// arrives while the router still owes this connection a response goes to the router, behind it.
public final class EventLoopFastPath<Responder: EventLoopResponder>: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    // The state types live outside the class: nested in it they would be generic over `Responder` too, and every
    // copy of the state would go through the runtime's generic metadata and value witnesses. Parts are wrapped and
    // unwrapped through ``FastPathParts`` for the same reason.
    private typealias State = FastPathState
    private typealias Reading = FastPathReading
    private typealias Ending = FastPathEnding

    /// Bytes of a refused body read and dropped at most before the connection is closed.
    static var discardBudget: Int { 1 << 20 }

    private let responder: Responder
    private let date: HTTPDate
    /// The private listener's rule, when the responder's routes are operator routes.
    private let access: OperatorAccess?
    private var state = State.idle
    /// Responses the router still owes for requests passed to it.
    private var routerResponsesOwed = 0
    /// Parts read while a request waited for its answer, replayed in order after its reply.
    private var queued = CircularBuffer<HTTPRequestPart>()
    /// A `read` held back while a request waits, so a pipelining client cannot pile up requests.
    private var readHeld = false
    /// A graceful-shutdown request held until the request in hand is answered.
    private var quiesceHeld: Any?
    /// What would end the connection behind a request waiting for its answer (the client's half-close, a next
    /// request the decoder could not parse), held until its reply is written: passed on at once, the router's
    /// side closed the connection or answered 400 first, and a device never saw the 200 for a stored postback.
    private var endingsHeld: [Ending] = []

    /// The last reply's write, which a close waits for.
    private var replyWritten: EventLoopFuture<Void>?

    /// A handler for one connection, answering what `responder` takes; `date` makes the `Date` header. With
    /// `access`, a request the rule refuses is left to the router, whose ``OperatorAccessMiddleware`` answers it 401:
    /// this path never lets in what the router would keep out.
    public init(_ responder: Responder, date: HTTPDate, access: OperatorAccess? = nil) {
        self.responder = responder
        self.date = date
        self.access = access
    }

    // MARK: Inbound

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        handle(FastPathParts.unwrapInboundIn(data), context: context)
    }

    private func handle(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        switch state {
        case .idle:
            guard case .head(let head) = part else { return context.fireChannelRead(FastPathParts.wrapInboundOut(part)) }
            if let route = fastRoute(for: head) {
                begin(head, route: route, context: context)
            } else {
                routerResponsesOwed += 1
                state = .passing
                context.fireChannelRead(FastPathParts.wrapInboundOut(part))
            }
        case .passing:
            if case .end = part { state = .idle }
            context.fireChannelRead(FastPathParts.wrapInboundOut(part))
        case .reading(var reading):
            switch part {
            case .head:
                // HTTP's decoder never starts a request inside another; were it to, the request in hand is void.
                state = .idle
                handle(part, context: context)
            case .body(var chunk):
                if (reading.body?.readableBytes ?? 0) + chunk.readableBytes > responder.bodyLimit {
                    // Answered at once; the rest of the body is dropped unread into memory, then the connection
                    // closes.
                    state = .discarding(closesAtEnd: true, budget: Self.discardBudget)
                    return reply(responder.tooLarge(), start: reading.start, closes: true, context: context)
                }
                if reading.body == nil {
                    reading.body = chunk
                } else {
                    state = .idle  // the buffer's only reference, so that appending does not copy it
                    reading.body!.writeBuffer(&chunk)
                }
                state = .reading(reading)
            case .end:
                answer(reading, context: context)
            }
        case .discarding(let closesAtEnd, let budget):
            if case .body(let chunk) = part {
                let left = budget - chunk.readableBytes
                if left < 0 { return close(context: context) }
                state = .discarding(closesAtEnd: closesAtEnd, budget: left)
                return
            }
            guard case .end = part else { return }
            if closesAtEnd {
                close(context: context)
            } else {
                state = .idle
                resume(context: context)
            }
        case .waiting:
            queued.append(part)
        case .closing:
            break
        }
    }

    /// The responder's route when it takes `head` and nothing stands in the way.
    private func fastRoute(for head: HTTPRequest) -> String? {
        guard routerResponsesOwed == 0, let route = responder.route(for: head) else { return nil }
        if let access, !access.admits(head.headerFields) { return nil }
        // `Expect: 100-continue` asks for an interim response, which is the router's server's business.
        if head.headerFields[.expect] != nil { return nil }
        return route
    }

    private func begin(_ head: HTTPRequest, route: String, context: ChannelHandlerContext) {
        let start = ContinuousClock.now
        let closesAfter = head.headerFields[.connection]?.lowercased() == "close"
        if let (answer, closesAnyway) = responder.answer(beforeBody: head) {
            // Answered from the head alone; the body is read past and dropped. A responder closes the connection
            // when the request cannot be trusted to be framed as the client meant, or is too large to read past.
            let closes = closesAfter || closesAnyway
            state = .discarding(closesAtEnd: closes, budget: Self.discardBudget)
            return reply(answer, start: start, closes: closes, context: context)
        }
        state = .reading(Reading(route: route, start: start, closesAfter: closesAfter, body: nil,
                                 head: responder.wantsRequest ? head : nil))
    }

    private func answer(_ reading: Reading, context: ChannelHandlerContext) {
        state = .waiting
        let loop = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let start = reading.start, closes = reading.closesAfter
        let done: @Sendable (Responder.Answer) -> Void = { answer in
            let reply: @Sendable () -> Void = {
                let (handler, context) = loop.value
                handler.state = .idle
                handler.reply(answer, start: start, closes: closes, context: context)
            }
            // An answer given at once, on this loop, is written at once: no hop through the loop's queue.
            if loop.eventLoop.inEventLoop { reply() } else { loop.eventLoop.execute(reply) }
        }
        if let head = reading.head {
            responder.answer(reading.body ?? ByteBuffer(), route: reading.route, head: head,
                             peer: context.channel.remoteAddress, done: done)
        } else {
            responder.answer(reading.body ?? ByteBuffer(), route: reading.route, done: done)
        }
    }

    /// Counts and writes the reply, then goes on with whatever queued behind it. The state is already the one
    /// that follows the reply: `idle`, or `discarding` when the body still has to be read past.
    private func reply(_ answer: Responder.Answer, start: ContinuousClock.Instant, closes: Bool,
                       context: ChannelHandlerContext) {
        responder.record(answer, since: start)
        guard context.channel.isActive else { return }
        let (status, contentType, body) = responder.reply(answer)
        var headers = HTTPFields()
        headers.reserveCapacity(4)
        headers[.contentType] = contentType
        headers[.contentLength] = String(body.readableBytes)
        headers[.date] = date.current
        if closes { headers[.connection] = "close" }
        context.write(FastPathParts.wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: headers))), promise: nil)
        context.write(FastPathParts.wrapOutboundOut(.body(body)), promise: nil)
        let written = context.writeAndFlush(FastPathParts.wrapOutboundOut(.end(nil)))
        replyWritten = written
        if case .discarding = state {
            return
        } else if closes {
            close(context: context)
        } else {
            resume(context: context)
        }
    }

    /// Closes once the last reply is out (NIO's close drops writes still pending); nothing more is read.
    private func close(context: ChannelHandlerContext) {
        state = .closing
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let written = replyWritten ?? context.eventLoop.makeSucceededVoidFuture()
        written.whenComplete { _ in bound.value.close(promise: nil) }
    }

    /// Replays queued parts until one of them starts another wait, then lets a held read or shutdown through.
    private func resume(context: ChannelHandlerContext) {
        let replaying = !queued.isEmpty
        while !isWaiting, let part = queued.popFirst() {
            handle(part, context: context)
        }
        // Parts passed on outside a read cycle stay buffered in NIOAsyncChannel's handler (it hands reads to the
        // router on read-complete), so a replay ends with one.
        if replaying { context.fireChannelReadComplete() }
        if isWaiting { return }
        releaseEndings(context: context)
        if let event = quiesceHeld, case .idle = state {
            quiesceHeld = nil
            context.fireUserInboundEventTriggered(event)
        }
        if readHeld {
            readHeld = false
            context.read()
        }
    }

    /// Passes on the held endings once the last reply is written, so that nothing they cause (a close, a 400)
    /// can overtake it.
    private func releaseEndings(context: ChannelHandlerContext) {
        guard !endingsHeld.isEmpty else { return }
        let endings = endingsHeld
        endingsHeld = []
        let bound = NIOLoopBound((context, endings), eventLoop: context.eventLoop)
        let written = replyWritten ?? context.eventLoop.makeSucceededVoidFuture()
        written.whenComplete { _ in
            let (context, endings) = bound.value
            for ending in endings {
                switch ending {
                case .event(let event): context.fireUserInboundEventTriggered(event)
                case .error(let error): context.fireErrorCaught(error)
                }
            }
        }
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A decoding error here belongs to a request after the one in hand (that one was read whole).
        if case .waiting = state {
            endingsHeld.append(.error(error))
            return
        }
        context.fireErrorCaught(error)
    }

    private var isWaiting: Bool {
        switch state {
        case .waiting, .closing: true
        case .idle, .passing, .reading, .discarding: false
        }
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .waiting = state, let channelEvent = event as? ChannelEvent, channelEvent == .inputClosed {
            endingsHeld.append(.event(event))
            return
        }
        // Hummingbird closes a connection it believes idle at once on graceful shutdown; it cannot see a request
        // that this handler holds, so the event waits until that request is answered.
        if event is ChannelShouldQuiesceEvent {
            switch state {
            case .reading, .discarding, .waiting:
                quiesceHeld = event
                return
            case .idle, .passing, .closing:
                break
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Outbound

    public func read(context: ChannelHandlerContext) {
        if isWaiting {
            readHeld = true
        } else {
            context.read()
        }
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = FastPathParts.unwrapOutboundIn(data), routerResponsesOwed > 0 {
            routerResponsesOwed -= 1
        }
        context.write(data, promise: promise)
    }
}

/// Where an ``EventLoopFastPath`` is in a connection's requests.
private enum FastPathState {
    /// Between requests.
    case idle
    /// A request that the router answers: its parts pass through until its end.
    case passing
    /// Reading a body the responder answers.
    case reading(FastPathReading)
    /// Answered before the body was read whole; the rest is read and dropped up to its end (closing then, if
    /// asked: a connection closed with bytes unread is reset, and the reset can destroy the reply in flight),
    /// or until `budget` bytes more were dropped, when the connection closes anyway: a client may not make the
    /// server read an endless body it already refused. (``ConnectionDeadline`` bounds the time.)
    case discarding(closesAtEnd: Bool, budget: Int)
    /// The body is with the responder; the reply comes when it answers. Inbound parts queue meanwhile.
    case waiting
    /// Answered, and the connection closes: nothing more is read.
    case closing
}

private struct FastPathReading {
    let route: String
    let start: ContinuousClock.Instant
    let closesAfter: Bool
    /// The body so far: the first part as the decoder gave it (a small body nearly always comes in one),
    /// later parts appended to it.
    var body: ByteBuffer?
    /// The request's head, kept only for a responder that wants it (``EventLoopResponder/wantsRequest``).
    var head: HTTPRequest?
}

/// What would end a connection, held while a request waits for its answer.
private enum FastPathEnding {
    case event(Any)
    case error(any Error)
}

/// NIO's typed wrapping of HTTP parts, reached through a type that is not generic. Called on the generic
/// ``EventLoopFastPath``, NIO's default implementations ran unspecialized: a dynamic cast and generic metadata
/// lookups for every part read and written. Never instantiated.
private final class FastPathParts: ChannelDuplexHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart
}
