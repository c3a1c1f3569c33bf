import Foundation
import Logging
import NIOCore
import NIOPosix
@testable import SKANCollector
import SKANHTTP
import SKANStore
import SKANStoreSQLite
import SKANTestSupport
import Synchronization
import Testing

/// Slow and misbehaving clients on raw connections: what a server facing the internet must bound or answer.
@Suite("Connection lifetimes", .timeLimit(.minutes(1)))
struct ConnectionLifetimeTests {
    enum Path: String, CaseIterable, CustomTestStringConvertible {
        case eventLoop = "event loop", router
        var testDescription: String { rawValue }
        var answersOnEventLoop: Bool { self == .eventLoop }
    }

    /// What the server did with one connection: everything it sent, and whether it closed the connection
    /// before `patience` ran out.
    struct Outcome {
        let received: String
        let closedByServer: Bool
        /// Postbacks the store holds once the exchange is over.
        var stored = 0
    }

    /// Runs a collector with short timeouts, connects, sends `bytes` (then half-closes if asked) and reads until
    /// the server closes or `patience` passes; then counts the postbacks stored.
    /// `patience` only bounds a test that fails: the router path answers from Swift's concurrency threads, which
    /// the CPU-bound suites running beside these can hold for seconds on a two-core machine.
    static func connect(_ path: Path, sending bytes: String, halfClose: Bool = false, patience: Duration = .seconds(30),
                        idleTimeout: Duration = .milliseconds(400), requestTimeout: Duration = .milliseconds(400))
        async throws -> Outcome {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let configuration = CollectorConfiguration(port: 0, answersPostbacksOnEventLoop: path.answersOnEventLoop,
                                                   idleTimeout: idleTimeout, requestTimeout: requestTimeout)
        let collector = try Collector(configuration: configuration,
                                      store: try SQLitePostbackStore(inMemoryWith: RejectionCap()),
                                      verifier: TestPostbacks.verifier, logger: logger)
        return try await collector.serve { port in
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.allowRemoteHalfClosure, value: true)
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true))
                    }
                }
            var outcome = try await channel.executeThenClose { inbound, outbound in
                if !bytes.isEmpty { try await outbound.write(ByteBuffer(string: bytes)) }
                if halfClose { outbound.finish() }
                return try await withThrowingTaskGroup(of: Outcome?.self) { group in
                    group.addTask {
                        var received = ""
                        do {
                            for try await chunk in inbound { received += String(buffer: chunk) }
                        } catch {
                            // A reset after the server's close is a close too.
                        }
                        return Outcome(received: received, closedByServer: true)
                    }
                    group.addTask {
                        try? await Task.sleep(for: patience)
                        return nil
                    }
                    let first = try await group.next()!
                    group.cancelAll()
                    return first ?? Outcome(received: "", closedByServer: false)
                }
            }
            outcome.stored = try await collector.store.stats().postbacks
            return outcome
        }
    }

    static let postback = TestPostbacks.postback().json

    @Test("an idle connection is closed by the server", arguments: Path.allCases)
    func idle(path: Path) async throws {
        #expect(try await Self.connect(path, sending: "").closedByServer)
    }

    @Test("a head that never completes is closed by the server", arguments: Path.allCases)
    func slowHead(path: Path) async throws {
        #expect(try await Self.connect(path, sending: "POST /postbacks HTTP/1.1\r\nHost: t\r\nContent-Le").closedByServer)
    }

    @Test("a body shorter than its Content-Length is closed by the server", arguments: Path.allCases)
    func shortBody(path: Path) async throws {
        let request = "POST /postbacks HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 900\r\n\r\n{\"version\""
        #expect(try await Self.connect(path, sending: request).closedByServer)
    }

    @Test("a request without Host is answered 400 bad-request, a postback and any other route alike",
          arguments: Path.allCases)
    func missingHost(path: Path) async throws {
        for request in ["GET /healthz HTTP/1.1\r\n\r\n",
                        "POST /postbacks HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"] {
            let outcome = try await Self.connect(path, sending: request, idleTimeout: .seconds(3), requestTimeout: .seconds(3))
            let replies = PostbackFastPathTests.parse(outcome.received)
            #expect(replies.map(\.status) == [400], "\(request): \(outcome.received)")
            #expect(replies.first?.body.contains(#""status":"bad-request""#) == true)
            #expect(outcome.stored == 0)
        }
    }

    @Test("a connection answered 413 before its body was read is closed once idle, on both paths",
          arguments: Path.allCases)
    func answeredBeforeBodyThenIdle(path: Path) async throws {
        let body = String(repeating: "x", count: 200_000)
        let request = "POST /postbacks HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        let outcome = try await Self.connect(path, sending: request, patience: .seconds(15), idleTimeout: .seconds(1),
                                             requestTimeout: .seconds(30))
        #expect(outcome.closedByServer)
        #expect(PostbackFastPathTests.parse(outcome.received).map(\.status) == [413])
    }

    @Test("a refused body is read past only up to a bound, then the connection closes (event loop)")
    func discardBound() async throws {
        let head = "POST /postbacks HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n"
        let outcome = try await Self.connect(.eventLoop, sending: head + String(repeating: "x", count: 3 << 20),
                                             idleTimeout: .seconds(30), requestTimeout: .seconds(30))
        #expect(outcome.closedByServer)
        #expect(PostbackFastPathTests.parse(outcome.received).map(\.status) == [413])
    }

    @Test("after a reply the connection stays open for the idle timeout, then closes", arguments: Path.allCases)
    func keepAliveThenClose(path: Path) async throws {
        // Long enough for a loaded machine to read and answer the postback before the idle timeout can fire.
        let outcome = try await Self.connect(path, sending: PostbackFastPathTests.post(Self.postback),
                                             idleTimeout: .seconds(3), requestTimeout: .seconds(3))
        #expect(outcome.closedByServer)
        #expect(PostbackFastPathTests.parse(outcome.received).map(\.status) == [200])
    }

    @Test("a postback whose client half-closes after sending still gets its 200", arguments: Path.allCases)
    func halfClose(path: Path) async throws {
        let outcome = try await Self.connect(path, sending: PostbackFastPathTests.post(Self.postback), halfClose: true,
                                             idleTimeout: .seconds(5))
        #expect(PostbackFastPathTests.parse(outcome.received).map(\.status) == [200], "\(outcome.received)")
        #expect(outcome.stored == 1)
    }

    @Test("a postback followed by a malformed request gets its 200 before the 400", arguments: Path.allCases)
    func badNextRequest(path: Path) async throws {
        let outcome = try await Self.connect(path, sending: PostbackFastPathTests.post(Self.postback) + "GARBAGE\r\n\r\n",
                                             idleTimeout: .seconds(5))
        let statuses = PostbackFastPathTests.parse(outcome.received).map(\.status)
        #expect(statuses.first == 200, "\(outcome.received)")
        #expect(outcome.stored == 1)
    }
}

@Suite("Connection limits and shutdown", .timeLimit(.minutes(1)))
struct ConnectionLimitTests {
    static func collector(_ configuration: CollectorConfiguration) throws -> Collector {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try Collector(configuration: configuration, store: try SQLitePostbackStore(inMemoryWith: RejectionCap()),
                             verifier: TestPostbacks.verifier, logger: logger)
    }

    static func open(_ port: Int) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// A new connection that has had one reply, and stays open until the returned descriptor is closed. Plain
    /// blocking sockets: each step is a loopback round trip of a millisecond.
    static func openServed(_ port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let request = Array("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
        _ = send(socket, request, request.count, 0)
        var reply = [UInt8](repeating: 0, count: 1024)
        _ = recv(socket, &reply, reply.count, 0)
        return socket
    }

    /// Sends a GET of /healthz on a new connection and waits up to `patience` for the status line.
    static func health(_ port: Int, patience: Duration) async throws -> Bool {
        let channel = try await open(port)
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"))
            return await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    var iterator = inbound.makeAsyncIterator()
                    guard let chunk = try? await iterator.next() else { return false }
                    return String(buffer: chunk).hasPrefix("HTTP/1.1 200")
                }
                group.addTask {
                    try? await Task.sleep(for: patience)
                    return false
                }
                let first = await group.next()!
                group.cancelAll()
                return first
            }
        }
    }

    @Test("past the connection limit a new connection waits, and is served once another closes")
    func limit() async throws {
        // Three across the device and admin listeners, each guaranteed one: the device port may hold two.
        let collector = try Self.collector(CollectorConfiguration(port: 0, maximumConnections: 3))
        try await collector.serve { port in
            // Each holding connection is served once, so that it is accepted before the next one connects: the
            // server accepts in batches, and a batch can take a connection or two past the limit.
            let first = try Self.openServed(port), second = try Self.openServed(port)
            // Both slots taken by idle clients: the third connection is not served.
            #expect(try await Self.health(port, patience: .milliseconds(700)) == false)
            close(first)
            // Generous: on a loaded two-core machine the accept and reply can take seconds.
            #expect(try await Self.health(port, patience: .seconds(20)))
            close(second)
        }
    }

    @Test("a graceful shutdown cuts a client still sending after the shutdown timeout, not the request timeout")
    func shutdownDeadline() async throws {
        let collector = try Self.collector(CollectorConfiguration(port: 0, requestTimeout: .seconds(50),
                                                                  shutdownTimeout: .milliseconds(500)))
        let clock = ContinuousClock()
        let stopped = Mutex<ContinuousClock.Instant?>(nil)
        let slow = try await collector.serve { port in
            let channel = try await Self.open(port)
            try await channel.channel.writeAndFlush(ByteBuffer(
                string: "POST /postbacks HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"))
            try await Task.sleep(for: .milliseconds(100))
            stopped.withLock { $0 = clock.now }
            return channel
        }
        let shutdown = clock.now - stopped.withLock { $0! }
        try? await slow.channel.close()
        #expect(shutdown < .seconds(10), "shutdown took \(shutdown)")
    }
}

@Suite("Descriptor limit")
struct DescriptorLimitTests {
    @Test("the soft limit is raised to the hard one, and connections leave a reserve below it")
    func raised() {
        let limit = DescriptorLimit.raise()
        #expect(limit.soft >= limit.previous)
        #expect(limit.soft == min(limit.hard, 1 << 20))
        #expect(limit.connectionBudget == max(1, limit.soft - DescriptorLimit.reserve))
    }
}
