import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import Synchronization

/// A local HTTP server standing in for a partner: it answers each attempt as its script says, and records every
/// attempt (key, body, headers) and every postback it accepted.
public final class Receiver: Sendable {
    public enum Answer: Sendable {
        case accept
        case status(Int, retryAfter: String? = nil)
        /// Never answers (until the request is cut).
        case stall
    }

    public struct Attempt: Sendable {
        public let key: String
        public let body: [UInt8]
        public let headers: HTTPFields
    }

    private struct State {
        public var attempts: [Attempt] = []
        public var accepted: [String: [UInt8]] = [:]
        var running: Task<Void, any Error>?
    }

    /// The answer to the `n`th attempt (1-based) of a key.
    public let script: @Sendable (_ key: String, _ attempt: Int) -> Answer
    private let state = Mutex(State())

    public init(script: @escaping @Sendable (_ key: String, _ attempt: Int) -> Answer = { _, _ in .accept }) {
        self.script = script
    }

    public var attempts: [Attempt] { state.withLock { $0.attempts } }
    /// Bodies of accepted postbacks by idempotency key.
    public var accepted: [String: [UInt8]] { state.withLock { $0.accepted } }

    public func attempts(of key: String) -> Int { attempts.filter { $0.key == key }.count }

    /// Starts listening on `port` (0: a free one) and returns the port.
    public func start(port: Int = 0) async throws -> Int {
        let router = Router()
        router.post("/in") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let key = request.headers[HTTPField.Name("Idempotency-Key")!] ?? ""
            let attempt = Attempt(key: key, body: Array(body.readableBytesView), headers: request.headers)
            let number = self.state.withLock { state in
                state.attempts.append(attempt)
                return state.attempts.filter { $0.key == key }.count
            }
            switch self.script(key, number) {
            case .accept:
                self.state.withLock { $0.accepted[key] = attempt.body }
                return Response(status: .ok)
            case .status(let code, let retryAfter):
                var headers = HTTPFields()
                if let retryAfter { headers[.retryAfter] = retryAfter }
                return Response(status: .init(code: code), headers: headers)
            case .stall:
                try await Task.sleep(for: .seconds(3600))
                return Response(status: .ok)
            }
        }
        let (ports, bound) = AsyncStream.makeStream(of: Int.self)
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
                                      onServerRunning: { channel in bound.yield(channel.localAddress?.port ?? 0) })
        let task = Task { try await application.runService(gracefulShutdownSignals: []) }
        state.withLock { $0.running = task }
        for await bound in ports { return bound }
        throw CancellationError()
    }

    public func stop() async {
        let task = state.withLock { $0.running }
        task?.cancel()
        _ = try? await task?.value
    }
}

/// A TCP server that answers anything with bytes that are not HTTP, then closes.
public enum GarbageServer {
    public static func start() async throws -> (port: Int, channel: any Channel) {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in channel.pipeline.addHandler(Garbage()) }
            .bind(host: "127.0.0.1", port: 0).get()
        return (channel.localAddress?.port ?? 0, channel)
    }

    final class Garbage: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let reply = context.channel.allocator.buffer(string: "\u{1}\u{2}garbage, not HTTP at all\r\n\r\n")
            let channel = context.channel
            context.writeAndFlush(NIOAny(reply)).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
