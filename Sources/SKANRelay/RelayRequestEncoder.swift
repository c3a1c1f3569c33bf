import NIOCore
import NIOHTTP1

/// Writes each request of a relay connection as one buffer: its head, its `Content-Length` body and nothing else.
///
/// In place of NIO's `HTTPRequestEncoder` and header validator, which wrote a request as two or three buffers and
/// checked every header on every request: the relay's requests are all alike (a `POST` with a known length, never
/// chunked), and their header names and values are checked once, when the configuration is read
/// (``RelayHeader/problem``) — the per-request ones are hex and digits. This handler sits between the socket (or TLS)
/// and NIO's response decoder, which still sees every request part go by: it needs each request's method to read
/// the reply.
final class RelayRequestEncoder: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = ByteBuffer

    private var pending: ByteBuffer?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            var buffer = context.channel.allocator.buffer(capacity: 1024)
            buffer.writeString(head.method.rawValue)
            buffer.writeStaticString(" ")
            buffer.writeString(head.uri)
            buffer.writeStaticString(" HTTP/1.1\r\n")
            for (name, value) in head.headers {
                buffer.writeString(name)
                buffer.writeStaticString(": ")
                buffer.writeString(value)
                buffer.writeStaticString("\r\n")
            }
            buffer.writeStaticString("\r\n")
            pending = buffer
            promise?.succeed()
        case .body(.byteBuffer(var body)):
            if pending == nil { pending = context.channel.allocator.buffer(capacity: body.readableBytes) }
            pending!.writeBuffer(&body)
            promise?.succeed()
        case .body(.fileRegion):
            promise?.fail(ChannelError.operationUnsupported)
        case .end:
            // Trailers are never sent: the relay's requests have a length.
            let buffer = pending ?? context.channel.allocator.buffer(capacity: 0)
            pending = nil
            context.write(wrapOutboundOut(buffer), promise: promise)
        }
    }
}
