import HTTPTypes
import NIOCore
import SKANHTTP
import SKANStore

/// The collector's postbacks, answered on the event loop by ``EventLoopFastPath``: read and verified on the loop
/// that read them, queued for the ``GroupCommitWriter``, and answered from the same loop when their transaction
/// commits. Replies, metrics and what is stored are the router's own (``PostbackRequestRules``,
/// ``PostbackPipeline``, ``HTTPReplies``); the router serves postbacks instead when
/// ``CollectorConfiguration/answersPostbacksOnEventLoop`` is off.
///
/// A class: ``EventLoopFastPath`` is generic code that reaches its responder through the runtime, which copied a
/// struct of some twenty references (the pipeline's, the metrics') with a retain and a release each, per request.
final class PostbackResponder: EventLoopResponder {
    let pipeline: PostbackPipeline
    let metrics: CollectorMetrics
    /// The configured endpoints by their path as the router matches it.
    let paths: [String: String]
    let bodyLimit: Int
    /// Who sent a postback: the peer, or `X-Forwarded-For` behind a trusted proxy.
    let clients: ClientAddress

    init(pipeline: PostbackPipeline, metrics: CollectorMetrics, paths: [String], limit: Int, clients: ClientAddress) {
        self.pipeline = pipeline
        self.clients = clients
        self.metrics = metrics
        self.paths = Dictionary(paths.map { (RoutePath.normalized($0), $0) }, uniquingKeysWith: { first, _ in first })
        bodyLimit = limit
    }

    func route(for head: HTTPRequest) -> String? {
        guard head.method == .post, let path = head.path else { return nil }
        return paths[RoutePath.normalized(path)]
    }

    func answer(beforeBody head: HTTPRequest) -> (answer: PostbackPipeline.Result, closes: Bool)? {
        if let refusal = PostbackRequestRules.missingHost(head) {
            // The request cannot be trusted to be framed as the client meant: answer, drop the body, close.
            return (.init(reply: refusal, version: nil), true)
        }
        if let refusal = PostbackRequestRules.refusal(for: head.headerFields, limit: bodyLimit) {
            // A declared length over the limit closes the connection after the body; a wrong type keeps it.
            return (.init(reply: refusal, version: nil), refusal.outcome == .tooLarge)
        }
        return nil
    }

    func tooLarge() -> PostbackPipeline.Result {
        .init(reply: PostbackRequestRules.tooLarge(limit: bodyLimit), version: nil)
    }

    func answer(_ body: ByteBuffer, route: String, done: @escaping @Sendable (PostbackPipeline.Result) -> Void) {
        pipeline.receive(Array(body.readableBytesView), endpoint: route, completion: done)
    }

    var wantsRequest: Bool { pipeline.wantsArrival }

    func answer(_ body: ByteBuffer, route: String, head: HTTPRequest, peer: SocketAddress?,
                done: @escaping @Sendable (PostbackPipeline.Result) -> Void) {
        let client = clients.resolve(peer: peer, headers: head.headerFields)
        let arrival = Arrival(clientAddress: client?.description, userAgent: head.headerFields[.userAgent])
        pipeline.receive(Array(body.readableBytesView), endpoint: route, arrival: arrival, completion: done)
    }

    func reply(_ answer: PostbackPipeline.Result) -> (status: HTTPResponse.Status, contentType: String, body: ByteBuffer) {
        let (status, body) = HTTPReplies.parts(answer.reply)
        return (status, "application/json", body)
    }

    func record(_ answer: PostbackPipeline.Result, since start: ContinuousClock.Instant) {
        metrics.record(answer, since: start)
    }
}
