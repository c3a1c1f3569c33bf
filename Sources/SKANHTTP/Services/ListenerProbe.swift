import NIOCore
import NIOPosix

/// Binds each listener's address for a moment, before a command creates anything (a database file, a WAL), so that
/// a busy port stops the process with one line naming it and leaves nothing behind.
///
/// A probe cannot reserve the port: another process may take it between the probe and the real bind. That bind's
/// failure is reported the same way by ``ServiceComposition``, only after the files were made.
public enum ListenerProbe {
    /// Throws ``ListenerError`` for the first of `listeners` (a port of 0 always binds) whose address cannot be bound.
    public static func check(_ listeners: [Listener]) async throws(ListenerError) {
        for listener in listeners where listener.port != 0 {
            do {
                // SO_REUSEADDR as Hummingbird sets it: a port in TIME_WAIT is free to the real bind, so it is here too.
                let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .bind(host: listener.host, port: listener.port).get()
                try? await channel.close()
            } catch {
                throw ListenerError.binding(listener, error)
                    ?? ListenerError(.cannotListen, "cannot listen on \(ListenerError.url(host: listener.host)):\(listener.port) (\(listener.option)): \(error)")
            }
        }
    }
}
