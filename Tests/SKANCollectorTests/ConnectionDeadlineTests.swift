import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import SKANHTTP
import Testing

/// ``ConnectionDeadline`` on a virtual clock: its one timer is moved by each request rather than replaced, so these
/// pin when a connection closes after the deadline moved later, or sooner, than the timer already set.
@Suite("Connection deadline timer")
struct ConnectionDeadlineTests {
    static func connected(idle: Duration, request: Duration) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: ConnectionDeadline(idleTimeout: idle, requestTimeout: request))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    static func request(_ channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .post, scheme: nil, authority: "t",
                                                                  path: "/postbacks")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
    }

    @Test("a connection kept busy closes one idle timeout after its last reply, not after its first")
    func pushedBack() throws {
        let channel = try Self.connected(idle: .seconds(1), request: .seconds(1))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(600))
        try Self.request(channel)
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        // The timer set at connection fires at 1 s and finds the deadline moved to 1.6 s.
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(999))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test("a request timeout shorter than the idle timer already set closes on the request's deadline")
    func broughtForward() throws {
        let channel = try Self.connected(idle: .seconds(10), request: .milliseconds(200))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(100))
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .post, scheme: nil, authority: "t",
                                                                  path: "/postbacks")))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(199))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test("nothing is timed while the server owes a response, however long the commit takes")
    func owedResponse() throws {
        let channel = try Self.connected(idle: .seconds(1), request: .seconds(1))
        try Self.request(channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(channel.isActive)
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(999))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }
}

/// ``ConnectionDeadline``'s write side on a virtual clock: a connection whose replies back up is read no further,
/// and closes when they stay backed up for the write timeout (issue 32: clients that never read their replies).
@Suite("Connection deadline: replies not drained")
struct ReplyBackPressureTests {
    /// Counts the reads that reach the socket's end of the pipeline.
    final class ReadCounter: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = Any
        var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    static func connected(write: Duration) throws -> (EmbeddedChannel, ReadCounter) {
        let counter = ReadCounter()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(counter)
        try channel.pipeline.syncOperations.addHandler(
            ConnectionDeadline(idleTimeout: .seconds(60), requestTimeout: .seconds(60), writeTimeout: write))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, counter)
    }

    static func writability(_ channel: EmbeddedChannel, _ writable: Bool) {
        channel.isWritable = writable
        channel.pipeline.fireChannelWritabilityChanged()
    }

    @Test("replies backed up for the write timeout close the connection, whatever the read deadlines say")
    func closesWhenUndrained() throws {
        let (channel, _) = try Self.connected(write: .milliseconds(500))
        try ConnectionDeadlineTests.request(channel)  // a response owed: the read deadlines are off
        Self.writability(channel, false)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(499))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test("replies that drain in time keep the connection, and the next backlog gets a full write timeout")
    func drainedInTime() throws {
        let (channel, _) = try Self.connected(write: .milliseconds(500))
        try ConnectionDeadlineTests.request(channel)
        Self.writability(channel, false)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(400))
        Self.writability(channel, true)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(400))
        Self.writability(channel, false)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(499))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test("a reply not handed to the socket within the write timeout closes the connection, writable or not")
    func replyNotDrained() throws {
        let (channel, _) = try Self.connected(write: .milliseconds(500))
        try ConnectionDeadlineTests.request(channel)
        // Written, never flushed: as a reply behind a full socket buffer, with the channel still writable.
        channel.write(HTTPResponsePart.end(nil), promise: nil)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(499))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test("replies that reach the socket leave nothing timed but the idle timeout")
    func repliesDrained() throws {
        let (channel, _) = try Self.connected(write: .milliseconds(500))
        try ConnectionDeadlineTests.request(channel)
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .seconds(59))
        #expect(channel.isActive)
        try channel.close().wait()
    }

    @Test("nothing is read while replies are backed up; the held read goes out once they drain")
    func readsHeld() throws {
        let (channel, counter) = try Self.connected(write: .seconds(5))
        Self.writability(channel, false)
        let before = counter.reads
        channel.read()
        #expect(counter.reads == before)
        Self.writability(channel, true)
        #expect(counter.reads == before + 1)
        channel.read()
        #expect(counter.reads == before + 2)
        try channel.close().wait()
    }
}
