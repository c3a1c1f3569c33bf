import NIOCore

/// What the kernel knows of a connection's replies: how many bytes the client has acknowledged since the connection
/// opened, and whether any still wait for it (sent and not acknowledged, or not sent for want of the client's window).
///
/// Why: a client's TCP acknowledges what reaches its receive buffer, so a client that stops reading stops
/// acknowledging once that small buffer is full, however much the server still has to send it. Writability cannot
/// say so in time: it turns only once the socket's send buffer and SwiftNIO's are full, which a slow route (the
/// admin port's `/healthz` reads the database) takes seconds to do for hundreds of connections at once, and the write
/// timeout started only then (issue 32: 8.4 s median lifetimes on the admin port with `--write-timeout 3`).
///
/// Read from Linux's `TCP_INFO`; elsewhere, or on a socket that is not TCP, there is nothing to read (`nil`) and the
/// write timeout counts from writability alone.
package struct SendProgress: Equatable, Sendable {
    /// Bytes the client acknowledged since the connection opened (`tcpi_bytes_acked`, Linux 4.1).
    package var acknowledged: UInt64
    /// Whether bytes wait in the socket: in flight (`tcpi_unacked` segments) or unsent (`tcpi_notsent_bytes`,
    /// Linux 4.6), for want of the client's window among other reasons.
    package var waiting: Bool
    /// With bytes unsent and none in flight (the client's window is shut), how long since data last went out
    /// (`tcpi_last_data_sent`): when the client last took something. `nil` otherwise.
    package var windowShutFor: TimeAmount?

    /// What a look found: `acknowledged` bytes, bytes `waiting` or not, the window shut for `windowShutFor`.
    package init(acknowledged: UInt64, waiting: Bool, windowShutFor: TimeAmount? = nil) {
        self.acknowledged = acknowledged
        self.waiting = waiting
        self.windowShutFor = windowShutFor
    }

    /// How a ``ConnectionDeadline`` looks at its socket: ``read(_:done:)``, or what a test makes up.
    package typealias Reader = @Sendable (any Channel, @escaping @Sendable (SendProgress?) -> Void) -> Void

    /// Reads the progress of `channel`'s socket and calls `done` with it (`nil` when it cannot be read), on the
    /// channel's event loop; at once when called there.
    @Sendable package static func read(_ channel: any Channel, done: @escaping @Sendable (SendProgress?) -> Void) {
        #if os(Linux)
        guard let provider = channel as? any SocketOptionProvider else { return done(nil) }
        let info: EventLoopFuture<KernelTCPInfo> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(NIOBSDSocket.OptionLevel.tcp.rawValue),
            name: SocketOptionName(NIOBSDSocket.Option.tcp_info.rawValue))
        info.whenComplete { result in done(try? result.get().progress) }
        #else
        done(nil)
        #endif
    }
}

#if os(Linux)
/// The head of Linux's `struct tcp_info` (`<linux/tcp.h>`) up to and with `tcpi_notsent_bytes`: glibc's copy of the
/// struct stops before `tcpi_bytes_acked`. The kernel only ever appends to the struct and copies what it has, so an
/// older kernel leaves the later fields as SwiftNIO zeroed them (no progress read, nothing unsent).
private struct KernelTCPInfo: Sendable {
    var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// Offsets in the kernel's struct (`offsetof` on linux/tcp.h): `tcpi_unacked`, `tcpi_last_data_sent` (ms),
    /// `tcpi_bytes_acked`, `tcpi_notsent_bytes`.
    private static let unacked = 24, lastDataSent = 44, bytesAcked = 120, notsentBytes = 144

    var progress: SendProgress {
        withUnsafeBytes(of: words) { bytes in
            let unacked = bytes.loadUnaligned(fromByteOffset: Self.unacked, as: UInt32.self)
            let notsent = bytes.loadUnaligned(fromByteOffset: Self.notsentBytes, as: UInt32.self)
            let lastDataSent = bytes.loadUnaligned(fromByteOffset: Self.lastDataSent, as: UInt32.self)
            return SendProgress(acknowledged: bytes.loadUnaligned(fromByteOffset: Self.bytesAcked, as: UInt64.self),
                                waiting: unacked > 0 || notsent > 0,
                                windowShutFor: unacked == 0 && notsent > 0 ? .milliseconds(Int64(lastDataSent)) : nil)
        }
    }
}
#endif
