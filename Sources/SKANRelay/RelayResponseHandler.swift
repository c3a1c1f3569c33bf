import NIOCore
import NIOHTTP1

/// What a receiver answered to one request: enough to judge the attempt and to know whether the connection can
/// carry the next one.
struct RelayReply: Sendable, Hashable {
    var status: Int
    var retryAfter: String?
    var keepAlive: Bool
}

/// Why an exchange ended without a reply, in words without bodies or secrets.
struct RelayExchangeError: Error, Sendable, CustomStringConvertible {
    var description: String
    /// The receiver took the whole timeout: sending again at once would only wait as long again.
    var timedOut = false
}

/// The last handler of a relay connection: completes the one request in flight on it with the receiver's reply.
///
/// A connection carries one request at a time (no pipelining: a partner's load balancer may not take it), so one
/// pending promise is the whole state. The reply's body is read and dropped: the connection is reusable only once it
/// has been drained, and nothing in it changes what the relay does. Any failure (a reply that is not HTTP, a reset,
/// the receiver closing) fails the pending request; the connection is then closed and never reused.
final class RelayResponseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private var pending: EventLoopPromise<RelayReply>?
    private var head: HTTPResponseHead?

    /// The request about to be written will be answered through `promise`.
    func expect(_ promise: EventLoopPromise<RelayReply>) {
        pending = promise
        head = nil
    }

    /// Fails the request in flight, if any (its deadline passed, or delivery stops).
    func abandon(_ error: RelayExchangeError) {
        head = nil
        guard let promise = pending else { return }
        pending = nil
        promise.fail(error)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let response):
            // 1xx heads are followed by the real one (NIO's decoder passes 100-continue through).
            if response.status.code >= 200 { head = response }
        case .body:
            break
        case .end:
            guard let response = head, let promise = pending else { return }
            head = nil
            pending = nil
            promise.succeed(RelayReply(status: Int(response.status.code),
                                       retryAfter: response.headers.first(name: "Retry-After"),
                                       keepAlive: response.isKeepAlive))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        abandon(RelayExchangeError(description: Self.describe(error)))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        abandon(RelayExchangeError(description: "the receiver closed the connection before answering"))
        context.fireChannelInactive()
    }

    /// A short reason: NIO's decoder errors name the parse failure, never the bytes.
    static func describe(_ error: any Error) -> String {
        if error is HTTPParserError { return "the receiver's answer is not HTTP/1.1 (\(error))" }
        let text = String(describing: error)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
