import Foundation
import Hummingbird
import NIOCore
import SKANCore
import SKANHTTP
import SKANStore

/// The collector's routes, by audience: `POST` postbacks on the configured paths and `/healthz` on the device port;
/// the read-only operator endpoints on the admin port.
enum CollectorRouter {
    static func make(pipeline: PostbackPipeline, store: any PostbackStore, metrics: CollectorMetrics,
                     failureLog: StoreFailureLog, configuration: CollectorConfiguration) -> Router<PeerRequestContext> {
        let router = Router(context: PeerRequestContext.self)
        add(to: router, pipeline: pipeline, store: store, metrics: metrics, failureLog: failureLog,
            configuration: configuration)
        return router
    }

    /// The admin listener's router: the operator routes behind ``OperatorAccessMiddleware``.
    static func makeAdmin(store: any PostbackStore, metrics: CollectorMetrics, failureLog: StoreFailureLog,
                          access: OperatorAccess) -> Router<PeerRequestContext> {
        let router = Router(context: PeerRequestContext.self)
        // First, so that it guards every route and the 404s alike.
        router.add(middleware: OperatorAccessMiddleware(access))
        router.add(middleware: HostRequiredMiddleware())
        addAdmin(to: router, store: store, metrics: metrics, failureLog: failureLog)
        return router
    }

    /// Adds the device-facing middleware and routes to `router`, which may carry another service's routes too:
    /// the postbacks and `/healthz`, nothing an operator reads. The context knows the peer's address: a postback's
    /// client address is resolved from it (``ClientAddress``).
    static func add<Context: RemoteAddressRequestContext>(to router: Router<Context>, pipeline: PostbackPipeline,
                                             store: any PostbackStore, metrics: CollectorMetrics,
                                             failureLog: StoreFailureLog, configuration: CollectorConfiguration) {
        // First, so that it guards every route and the 404s alike, as the event-loop path does for postbacks.
        router.add(middleware: HostRequiredMiddleware())
        for path in configuration.postbackPaths {
            router.post(RouterPath(path)) { request, context in
                let start = ContinuousClock.now
                let result = await receive(request, peer: context.remoteAddress,
                                           path: path, pipeline: pipeline, configuration: configuration)
                metrics.record(result, since: start)
                return HTTPReplies.reply(result.reply)
            }
            // RFC 9110 §15.5.6: a known resource answers other methods 405 with the methods it allows, not 404.
            for method in [HTTPRequest.Method.get, .put, .delete, .patch] {
                router.on(RouterPath(path), method: method) { _, _ in
                    var reply = HTTPReplies.json(405, #"{"status":"method-not-allowed","reason":"postbacks are POSTed"}"#)
                    reply.headers[.allow] = "POST"
                    return reply
                }
            }
        }
        addHealth(to: router, store: store, failureLog: failureLog)
    }

    /// `/healthz`: the store's health and nothing else, on both listeners (a load balancer probes the device port).
    static func addHealth<Context: RequestContext>(to router: Router<Context>, store: any PostbackStore,
                                                   failureLog: StoreFailureLog) {
        router.get("/healthz") { _, _ in
            // The store is the part that can fail under a running server (disk, file removed, locked database).
            guard let problem = await store.health() else { return HTTPReplies.json(200, #"{"status":"ok"}"#) }
            failureLog.record(problem, entries: 0)
            var writer = JSONWriter()
            writer.string("status", "unavailable")
            writer.string("part", "store")
            writer.string("reason", "\(problem.code)")
            return HTTPReplies.json(503, writer.json)
        }
    }

    /// Adds the operator routes to `router`: `/healthz`, `/metrics`, `/stats`, `GET /postbacks/{transaction-id}`.
    /// Only for a private listener: the caller adds ``OperatorAccessMiddleware`` ahead of them.
    static func addAdmin<Context: RequestContext>(to router: Router<Context>, store: any PostbackStore,
                                                  metrics: CollectorMetrics, failureLog: StoreFailureLog) {
        // A client learns that the store failed and its code, never the database's own message (paths, SQL):
        // that goes to the log.
        @Sendable func unavailable(_ error: StoreError) -> Response {
            failureLog.record(error, entries: 0)
            return HTTPReplies.json(503, PostbackReply(.unavailable, reason: "the store failed (\(error.code)); retry later").json)
        }
        addHealth(to: router, store: store, failureLog: failureLog)
        router.get("/metrics") { _, _ in
            // The store's series are left out while it fails: the process's own series still answer.
            let stats = try? await store.stats()
            return HTTPReplies.text(200, metrics.exposition(stats: stats), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        router.get("/stats") { _, _ in
            do throws(StoreError) {
                return HTTPReplies.json(200, try await store.stats().json)
            } catch {
                return unavailable(error)
            }
        }
        router.get("/postbacks/:transactionID") { _, context in
            let transactionID = context.parameters.get("transactionID") ?? ""
            do throws(StoreError) {
                let stored = try await store.postbacks(transactionID: transactionID)
                if stored.isEmpty {
                    var writer = JSONWriter()
                    writer.string("status", "not-found")
                    writer.string("reason", "no postback has transaction-id \(Excerpt.of(transactionID, maximumBytes: 128))")
                    return HTTPReplies.json(404, writer.json)
                }
                return HTTPReplies.json(200, "[" + stored.map(StoredPostbackJSON.json).joined(separator: ",") + "]")
            } catch {
                return unavailable(error)
            }
        }
    }

    /// Reads the body within the limit and sends it down the pipeline. Every client mistake ends here as a 4xx.
    /// `peer` is the connection's, when the router's context knows it (``PeerRequestContext``).
    private static func receive(_ request: Request, peer: SocketAddress?, path: String, pipeline: PostbackPipeline,
                                configuration: CollectorConfiguration) async -> PostbackPipeline.Result {
        let limit = configuration.bodyLimit
        if let refusal = PostbackRequestRules.refusal(for: request.headers, limit: limit) {
            return PostbackPipeline.Result(reply: refusal, version: nil)
        }
        let tooLarge = PostbackPipeline.Result(reply: PostbackRequestRules.tooLarge(limit: limit), version: nil)
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            return tooLarge
        } catch {
            return PostbackPipeline.Result(
                reply: PostbackReply(.malformed, reason: "the body could not be read: \(error)"), version: nil)
        }
        var arrival = Arrival()
        if pipeline.wantsArrival {
            let client = configuration.clientAddress.resolve(peer: peer, headers: request.headers)
            arrival = Arrival(clientAddress: client?.description, userAgent: request.headers[.userAgent])
        }
        return await pipeline.receive(Array(buffer.readableBytesView), endpoint: path, arrival: arrival)
    }
}

/// Answers 400 to a request without `Host` (RFC 9112 §3.2), with the collector's JSON reply and a close.
struct HostRequiredMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response {
        guard let refusal = PostbackRequestRules.missingHost(request.head) else { return try await next(request, context) }
        var response = HTTPReplies.reply(refusal)
        response.headers[.connection] = "close"
        return response
    }
}
