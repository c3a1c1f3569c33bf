import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import SKANHTTP
import Synchronization
import Testing

/// A client that pipelines is watched from the kernel's side (``SendProgress``): once it acknowledges nothing of the
/// replies waiting for it for the write timeout, ``ConnectionDeadline`` closes it, without waiting for the buffers
/// that make the channel unwritable to fill at the server's pace (issue 32: 300 such clients lived 8.4 s on the admin
/// port with a 3 s write timeout). The socket is made up here: an embedded channel, whose writes drain at once and
/// which stays writable, so that before the watch nothing closed these clients until the idle timeout (30 s).
@Suite("Front door: a pipelining client that stops acknowledging")
struct PipeliningWatchTests {
    /// What the made-up socket says, and how many times it was asked.
    final class Socket: Sendable {
        let progress = Mutex(SendProgress(acknowledged: 0, waiting: false))
        let looks = Mutex(0)

        var reader: SendProgress.Reader {
            { _, done in
                self.looks.withLock { $0 += 1 }
                done(self.progress.withLock { $0 })
            }
        }
    }

    static let write = Duration.seconds(3)
    /// How often the watch looks with a 3 s write timeout: an eighth of it.
    static let interval = TimeAmount.milliseconds(375)

    static func connection(_ socket: Socket) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            ConnectionDeadline(idleTimeout: .seconds(30), requestTimeout: .seconds(30), writeTimeout: write,
                               unsentLimit: nil, memory: nil, sendProgress: socket.reader))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return channel
    }

    static let head = HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "t", path: "/healthz"))

    /// `count` requests read in one read cycle, as a pipelining client's arrive.
    static func pipeline(_ count: Int, into channel: EmbeddedChannel) {
        for _ in 0..<count {
            channel.pipeline.syncOperations.fireChannelRead(NIOAny(head))
            channel.pipeline.syncOperations.fireChannelRead(NIOAny(HTTPRequestPart.end(nil)))
        }
        channel.pipeline.syncOperations.fireChannelReadComplete()
    }

    /// Answers one request, as the router or a fast path does.
    static func answer(_ channel: EmbeddedChannel) throws {
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
    }

    /// A client that pipelined 20 requests, was answered 5 and took 6,064 bytes of them, as the first look (at
    /// 375 ms) finds; from then on it takes nothing.
    static func stopped() throws -> (Socket, EmbeddedChannel) {
        let socket = Socket()
        let channel = try connection(socket)
        pipeline(20, into: channel)
        for _ in 0..<5 { try answer(channel) }
        socket.progress.withLock { $0 = SendProgress(acknowledged: 6064, waiting: true) }
        channel.embeddedEventLoop.advanceTime(by: interval)
        return (socket, channel)
    }

    @Test("replies waiting and nothing acknowledged: closed at the write timeout after the first look")
    func stalled() throws {
        let (socket, channel) = try Self.stopped()
        #expect(socket.looks.withLock { $0 } == 1)
        channel.embeddedEventLoop.advanceTime(by: TimeAmount(Self.write) - .milliseconds(1))
        #expect(channel.isActive, "closed before the write timeout had passed since the client stopped")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive, "a pipelining client that took nothing for the write timeout stayed open")
    }

    @Test("with the client's window shut, the stall counts from when data last went out to it")
    func windowShut() throws {
        let (socket, channel) = try Self.stopped()
        // The second look (750 ms) learns the window shut 700 ms ago: the client stopped at 50 ms.
        socket.progress.withLock { $0 = SendProgress(acknowledged: 6064, waiting: true, windowShutFor: .milliseconds(700)) }
        channel.embeddedEventLoop.advanceTime(by: Self.interval)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(3050 - 750 - 1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive, "not closed at 3.05 s, the write timeout after its window shut")
    }

    @Test("a pipelining client that keeps acknowledging stays open")
    func reading() throws {
        let socket = Socket()
        let channel = try Self.connection(socket)
        Self.pipeline(20, into: channel)
        for step in 1...40 {  // 15 s, five write timeouts, each look finding more taken
            socket.progress.withLock { $0 = SendProgress(acknowledged: UInt64(step) * 1000, waiting: true) }
            channel.embeddedEventLoop.advanceTime(by: Self.interval)
        }
        #expect(channel.isActive, "a client that reads slowly but steadily was closed")
        #expect(socket.looks.withLock { $0 } >= 39)
    }

    @Test("once everything is taken and nothing is owed, the watch stops looking")
    func caughtUp() throws {
        let socket = Socket()
        let channel = try Self.connection(socket)
        Self.pipeline(2, into: channel)
        try Self.answer(channel)
        try Self.answer(channel)
        channel.embeddedEventLoop.advanceTime(by: Self.interval)
        #expect(socket.looks.withLock { $0 } == 1)
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(socket.looks.withLock { $0 } == 1, "looked again with nothing waiting and nothing owed")
        #expect(channel.isActive)
    }

    @Test("a client that does not pipeline is never looked at")
    func oneAtATime() throws {
        let socket = Socket()
        let channel = try Self.connection(socket)
        socket.progress.withLock { $0 = SendProgress(acknowledged: 0, waiting: true) }
        for _ in 0..<20 {  // a request, its answer, the next request in a later read
            Self.pipeline(1, into: channel)
            try Self.answer(channel)
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(500))
        }
        #expect(socket.looks.withLock { $0 } == 0, "a device's or a browser's requests cost a look")
        #expect(channel.isActive)
    }
}

extension PipeliningWatchTests {
    /// Counts the reads that get past ``ConnectionDeadline`` to the socket.
    final class ReadCounter: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = Any
        let reads = Mutex(0)

        func read(context: ChannelHandlerContext) {
            reads.withLock { $0 += 1 }
            context.read()
        }
    }

    @Test("a pipelining client whose window is shut is read no further until a look finds it open")
    func shutWindowHoldsReads() throws {
        let socket = Socket()
        let counter = ReadCounter()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(counter)
        try channel.pipeline.syncOperations.addHandler(
            ConnectionDeadline(idleTimeout: .seconds(30), requestTimeout: .seconds(30), writeTimeout: Self.write,
                               unsentLimit: nil, memory: nil, sendProgress: socket.reader))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        Self.pipeline(20, into: channel)
        for _ in 0..<5 { try Self.answer(channel) }
        // The channel stays writable: before the watch, this read went through at once.
        socket.progress.withLock { $0 = SendProgress(acknowledged: 6064, waiting: true, windowShutFor: .milliseconds(10)) }
        let before = counter.reads.withLock { $0 }
        channel.read()
        #expect(counter.reads.withLock { $0 } == before, "read on while the client's window was shut")
        channel.embeddedEventLoop.advanceTime(by: Self.interval)
        #expect(counter.reads.withLock { $0 } == before, "read on while the client's window was still shut")
        // The client reads: its window opens, and the next look lets the held read through.
        socket.progress.withLock { $0 = SendProgress(acknowledged: 40_000, waiting: true) }
        channel.embeddedEventLoop.advanceTime(by: Self.interval)
        #expect(counter.reads.withLock { $0 } == before + 1, "the held read was not let through once the window opened")
        #expect(channel.isActive)
    }
}
