import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SKANStore
import Synchronization

/// One destination's keep-alive HTTP/1.1 connections, and the sending of a claimed batch over them.
///
/// Written on SwiftNIO's channels and HTTP/1.1 codec rather than through AsyncHTTPClient: the relay sends one request
/// per accepted postback, on the collector's cores, and AsyncHTTPClient's per-request machinery (its request state
/// machines, a task and a timer task per request in our use) cost more instructions than ingesting the postback did
/// (Benchmarks/README.md, "Relay"). Here a batch is one chain of futures per connection, and a request costs its
/// encoding, one write and the parse of the reply. A lane lives on one event loop of the group: its connections and
/// its batches' chains of futures never hop between threads.
///
/// At most ``RelayDestination/inFlight`` requests are in flight (one per connection; no pipelining, which a
/// partner's load balancer may not take). Every request has the destination's timeout, from its write to the end of
/// its reply; a request that fails closes its connection. A request that fails on a connection kept from an earlier
/// one is sent once more on a new connection (the receiver may have closed an idle connection as we wrote), with the
/// same `Idempotency-Key`, unless it timed out.
final class RelayLane: Sendable {
    struct Connection: Sendable {
        let channel: any Channel
        let handler: NIOLoopBound<RelayResponseHandler>
    }

    private struct State {
        var idle: [Connection] = []
        var open: [ObjectIdentifier: any Channel] = [:]
        var stopped = false
    }

    let destination: RelayDestination
    /// The lane's one event loop: every connection is made on it and every batch runs on it.
    private let loop: any EventLoop
    private let host: String
    private let port: Int
    /// The request target: the URL's path and query, percent-encoded as written.
    private let target: String
    /// Host, Content-Type and the destination's own headers, the same on every request.
    private let headers: HTTPHeaders
    private let tls: NIOSSLContext?
    private let serverName: String?
    private let state = Mutex(State())

    /// Prepares the lane of `destination`; nothing connects before the first batch. Throws only when TLS cannot be
    /// set up (the system's trust roots unreadable).
    init(destination: RelayDestination, group: any EventLoopGroup) throws {
        self.destination = destination
        self.loop = group.next()
        let url = destination.url
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let secure = url.scheme?.lowercased() == "https"
        host = url.host ?? "localhost"
        port = url.port ?? (secure ? 443 : 80)
        let path = components?.percentEncodedPath ?? ""
        target = (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
        let bracketed = host.contains(":") ? "[\(host)]" : host
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: url.port == nil ? bracketed : "\(bracketed):\(port)")
        headers.add(name: "Content-Type", value: "application/json")
        for header in destination.headers { headers.add(name: header.name, value: header.value) }
        self.headers = headers
        if secure {
            tls = try NIOSSLContext(configuration: .makeClientConfiguration())
            // SNI carries names only; an address is verified against the certificate's IP entries.
            serverName = Self.isAddress(host) ? nil : host
        } else {
            tls = nil
            serverName = nil
        }
    }

    /// Sends `entries`, at most ``RelayDestination/inFlight`` at once; one attempt per entry, in order. Never fails:
    /// what could not be sent is `.failed`, what delivery stopped before is `.stopped`. After the first round (one
    /// request per connection, which a lease of more than two timeouts always covers), no request starts after
    /// `lastStart`: an attempt can take two timeouts (one on a kept connection that failed, one on a fresh one), and
    /// the batch must end within its lease; entries not started by then are `.stopped` too, released for the next.
    /// The first round always starts, so a batch claimed close to its last start still moves on.
    func send(_ entries: [OutboxEntry], lastStart: NIODeadline) -> EventLoopFuture<[RelayAttempt]> {
        guard !entries.isEmpty else { return loop.makeSucceededFuture([]) }
        let cursor = RelayCursor(count: entries.count, lastStart: lastStart, firstRound: max(destination.inFlight, 1))
        let workers = (0 ..< min(max(destination.inFlight, 1), entries.count)).map { _ in work(entries, cursor: cursor) }
        return EventLoopFuture.andAllComplete(workers, on: loop).map { cursor.attempts }
    }

    /// Closes every connection and stops delivery: requests in flight end as `.stopped`, none starts.
    func stop() {
        let open = state.withLock { state in
            state.stopped = true
            state.idle = []
            return Array(state.open.values)
        }
        for channel in open { channel.close(promise: nil) }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// One worker: takes the next entry until none is left, one request at a time.
    private func work(_ entries: [OutboxEntry], cursor: RelayCursor) -> EventLoopFuture<Void> {
        guard let index = cursor.next() else { return loop.makeSucceededVoidFuture() }
        return attempt(entries[index], retryOnFresh: true).flatMap { attempt in
            cursor.record(attempt, at: index)
            return self.work(entries, cursor: cursor)
        }
    }

    private func attempt(_ entry: OutboxEntry, retryOnFresh: Bool) -> EventLoopFuture<RelayAttempt> {
        if isStopped { return loop.makeSucceededFuture(.stopped) }
        let reused = state.withLock { state -> Connection? in
            while let connection = state.idle.popLast() {
                if connection.channel.isActive { return connection }
            }
            return nil
        }
        let connection = reused.map { loop.makeSucceededFuture($0) } ?? connect()
        return connection.flatMap { connection in
            self.exchange(entry, on: connection).map { reply -> RelayAttempt in
                self.release(connection, reusable: reply.keepAlive)
                return .answered(status: reply.status, retryAfter: reply.retryAfter)
            }
        }.flatMapError { error -> EventLoopFuture<RelayAttempt> in
            if self.isStopped { return self.loop.makeSucceededFuture(.stopped) }
            // Not after a timeout: a batch must end within its lease (two timeouts per entry at most would not).
            let timedOut = (error as? RelayExchangeError)?.timedOut ?? false
            if reused != nil && retryOnFresh && !timedOut { return self.attempt(entry, retryOnFresh: false) }
            return self.loop.makeSucceededFuture(.failed(RelayResponseHandler.describe(error)))
        }
    }

    /// Writes one request on `connection` and waits for its reply, within the destination's timeout.
    private func exchange(_ entry: OutboxEntry, on connection: Connection) -> EventLoopFuture<RelayReply> {
        let channel = connection.channel
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: RelayReply.self)
        connection.handler.value.expect(promise)
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: target, headers: headers)
        head.headers.add(name: "Idempotency-Key", value: entry.item.idempotencyKey)
        if let signature = destination.signature {
            head.headers.add(name: signature.header, value: RelaySender.hmac(entry.item.body, secret: signature.secret))
        }
        head.headers.add(name: "Content-Length", value: String(entry.item.body.count))
        let body = channel.allocator.buffer(bytes: entry.item.body)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil)
        let timeout = destination.timeout
        channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { error in
            // A connection already closed takes no write and will send no reply.
            connection.handler.value.abandon(RelayExchangeError(description: RelayResponseHandler.describe(error)))
        }
        let deadline = loop.scheduleTask(in: TimeAmount(timeout)) {
            connection.handler.value.abandon(RelayExchangeError(description: "no answer within \(timeout)", timedOut: true))
        }
        promise.futureResult.whenComplete { result in
            deadline.cancel()
            if case .failure = result { channel.close(promise: nil) }
        }
        return promise.futureResult
    }

    private func connect() -> EventLoopFuture<Connection> {
        let (tls, serverName) = (tls, serverName)
        return ClientBootstrap(group: loop)
            .connectTimeout(TimeAmount(destination.timeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls { try pipeline.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName)) }
                    // Requests are encoded by our own encoder, replies read by NIO's decoder (which watches the
                    // requests go by, to know each one's method).
                    try pipeline.addHandler(RelayRequestEncoder())
                    try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)))
                    try pipeline.addHandler(RelayResponseHandler())
                }
            }
            .connect(host: host, port: port)
            .flatMapThrowing { channel in
                let handler = try channel.pipeline.syncOperations.handler(type: RelayResponseHandler.self)
                let key = ObjectIdentifier(channel)
                let stopped = self.state.withLock { state in
                    if !state.stopped { state.open[key] = channel }
                    return state.stopped
                }
                if stopped {
                    channel.close(promise: nil)
                    throw RelayExchangeError(description: "delivery stopped")
                }
                channel.closeFuture.whenComplete { _ in self.state.withLock { _ = $0.open.removeValue(forKey: key) } }
                return Connection(channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
            }
    }

    /// Keeps `connection` for the next request when the receiver allows it, up to one per request in flight.
    private func release(_ connection: Connection, reusable: Bool) {
        let kept = reusable && connection.channel.isActive && state.withLock { state in
            guard !state.stopped, state.idle.count < destination.inFlight else { return false }
            state.idle.append(connection)
            return true
        }
        if !kept { connection.channel.close(promise: nil) }
    }

    private static func isAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0.isNumber || $0 == "." })
    }
}

/// Hands out the indices of a batch to its workers, each once: the first round always, the rest until `lastStart`;
/// and keeps what each attempt came to.
final class RelayCursor: Sendable {
    private let state: Mutex<(position: Int, attempts: [RelayAttempt])>
    private let lastStart: NIODeadline
    private let firstRound: Int

    /// Every entry `.stopped` until its attempt is recorded.
    init(count: Int, lastStart: NIODeadline, firstRound: Int) {
        state = Mutex((position: 0, attempts: Array(repeating: .stopped, count: count)))
        self.lastStart = lastStart
        self.firstRound = firstRound
    }

    func next() -> Int? {
        let late = NIODeadline.now() > lastStart
        return state.withLock { state in
            guard state.position < state.attempts.count, !late || state.position < firstRound else { return nil }
            defer { state.position += 1 }
            return state.position
        }
    }

    func record(_ attempt: RelayAttempt, at index: Int) { state.withLock { $0.attempts[index] = attempt } }

    var attempts: [RelayAttempt] { state.withLock { $0.attempts } }
}
