import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
@testable import SKANCollector
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
