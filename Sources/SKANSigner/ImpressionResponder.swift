import Foundation
import HTTPTypes
import Metrics
import NIOCore
import SKANHTTP

/// What a `POST /v1/impressions` came to: the reply and how many impressions it signed.
struct ImpressionReply: Sendable {
    let status: HTTPResponse.Status
    /// The JSON body.
    let body: String
    /// Impressions signed (0 when refused).
    let count: Int

    /// The reply to a body over ``ImpressionResponder/bodyLimit``, for the router and the event loop alike.
    static let tooLarge = ImpressionReply(status: .contentTooLarge, body: ImpressionBody.Refusal(
        index: nil, reason: "the body is over the limit of \(ImpressionResponder.limit) bytes").json, count: 0)
}

/// `POST /v1/impressions`, answered on the event loop that read it by ``EventLoopFastPath``: an impression costs one
/// ECDSA signature (tens of microseconds), so a single one is signed and answered where it was read, without the
/// router's hops to Swift's task pool and back. Replies and metrics are the router's own (``Signer/sign``).
struct ImpressionResponder: EventLoopResponder {
    /// The route it answers.
    static let path = "/v1/impressions"
    /// The largest body read, as on the router.
    static let limit = 1 << 20
    /// Bodies larger than this (a batch of more than some 40 impressions) are signed on Swift's task pool, as the
    /// router would, so that one large batch does not hold up every other connection of its event loop.
    static let signedOnLoopBytes = 16 << 10

    let keys: SignerKeys
    let now: @Sendable () -> Date
    let makeNonce: @Sendable () -> UUID
    let signed: Metrics.Counter
    let refused: Metrics.Counter

    var bodyLimit: Int { Self.limit }

    func route(for head: HTTPRequest) -> String? {
        guard head.method == .post, let path = head.path, RoutePath.normalized(path) == Self.path else { return nil }
        return Self.path
    }

    func answer(beforeBody head: HTTPRequest) -> (answer: ImpressionReply, closes: Bool)? {
        // A declared length over the limit is refused before reading a byte of it, and the connection closes.
        guard let declared = head.headerFields[.contentLength].flatMap(Int.init), declared > Self.limit else { return nil }
        return (.tooLarge, true)
    }

    func tooLarge() -> ImpressionReply { .tooLarge }

    func answer(_ body: ByteBuffer, route: String, done: @escaping @Sendable (ImpressionReply) -> Void) {
        let (keys, now, makeNonce) = (keys, now, makeNonce)
        guard body.readableBytes <= Self.signedOnLoopBytes else {
            // Unstructured on purpose: this is a channel handler's synchronous callback, with no task to be a child
            // of. The task is the request's, as the router's per-request task is: it signs (milliseconds, no loop,
            // no wait), hands the reply to `done` and ends; it holds no resource and cannot outlive the connection
            // by more than that signature. A service hosting the work would add a queue and a hop to every batch.
            Task { done(Signer.sign(Array(body.readableBytesView), keys: keys, now: now, makeNonce: makeNonce)) }
            return
        }
        done(Signer.sign(Array(body.readableBytesView), keys: keys, now: now, makeNonce: makeNonce))
    }

    func reply(_ answer: ImpressionReply) -> (status: HTTPResponse.Status, contentType: String, body: ByteBuffer) {
        (answer.status, "application/json", ByteBuffer(string: answer.body))
    }

    func record(_ answer: ImpressionReply, since start: ContinuousClock.Instant) {
        Signer.count(answer, signed: signed, refused: refused)
    }
}
