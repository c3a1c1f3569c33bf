import Hummingbird
import NIOCore

/// The request context of every listener's router: Hummingbird's basic context, plus the connection's peer, so a
/// route can resolve who sent a request (``ClientAddress``) the way the event-loop fast paths do.
///
/// The peer is read from the channel only when a route asks for it: most routes never do.
public struct PeerRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    private let channel: any Channel

    /// A context for a request read from `source`'s channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The connection's peer; `nil` for a channel without one (a router test's embedded channel).
    public var remoteAddress: SocketAddress? { channel.remoteAddress }
}
