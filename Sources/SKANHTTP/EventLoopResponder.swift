import HTTPTypes
import NIOCore

/// What an ``EventLoopFastPath`` answers on the event loop that read the request, and how: the collector's postbacks,
/// the signer's impressions. Every other request goes to Hummingbird's router.
///
/// The responder's replies must be the router's own for the same request (one function builds both), so that
/// switching the fast path off changes nothing a client sees.
public protocol EventLoopResponder: Sendable {
    /// What a request came to: the reply and whatever the metrics count.
    associatedtype Answer: Sendable

    /// The route (the endpoint's configured name) when this responder answers `head`, or `nil` to pass the request
    /// to the router.
    func route(for head: HTTPRequest) -> String?

    /// The most body bytes read; a body over it is answered ``tooLarge()`` and dropped.
    var bodyLimit: Int { get }

    /// An answer the head alone calls for (a missing `Host`, a declared type or length refused), and whether the
    /// connection then closes; `nil` when the body must be read.
    func answer(beforeBody head: HTTPRequest) -> (answer: Answer, closes: Bool)?

    /// The answer to a body over ``bodyLimit``.
    func tooLarge() -> Answer

    /// Answers a whole body, calling `done` exactly once, on any thread (at once, or when a store commits).
    func answer(_ body: ByteBuffer, route: String, done: @escaping @Sendable (Answer) -> Void)

    /// Whether ``answer(_:route:head:peer:done:)`` is to be called instead, with the request's head and peer:
    /// kept `false` (the default), the fast path holds neither.
    var wantsRequest: Bool { get }

    /// Answers a whole body knowing its request's head and the connection's peer (the collector's relay forwards
    /// the client's address and user agent); by default ``answer(_:route:done:)``.
    func answer(_ body: ByteBuffer, route: String, head: HTTPRequest, peer: SocketAddress?,
                done: @escaping @Sendable (Answer) -> Void)

    /// The status, content type and body of an answer's reply.
    func reply(_ answer: Answer) -> (status: HTTPResponse.Status, contentType: String, body: ByteBuffer)

    /// Counts an answer in the metrics; `start` is when its head arrived.
    func record(_ answer: Answer, since start: ContinuousClock.Instant)
}

extension EventLoopResponder {
    public var wantsRequest: Bool { false }

    public func answer(_ body: ByteBuffer, route: String, head: HTTPRequest, peer: SocketAddress?,
                       done: @escaping @Sendable (Answer) -> Void) {
        answer(body, route: route, done: done)
    }
}
