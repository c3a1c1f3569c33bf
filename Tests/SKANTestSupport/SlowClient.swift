import Foundation
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A client as slow as an attacker likes, on one blocking loopback socket: it connects and then sends nothing, or
/// half a request, or pipelines requests without ever reading a reply. Each call measures what the server did
/// with it (closed it, and after how long). Plain sockets: every step is bounded by a poll or a send timeout.
public final class SlowClient {
    /// The socket.
    public let descriptor: Int32

    /// Connects to `port` on 127.0.0.1; `receiveBuffer` shrinks the socket's receive buffer first (the kernel
    /// doubles it and keeps a minimum), so that replies not read back up into the server at once.
    public init(port: Int, receiveBuffer: Int? = nil) throws(SlowClientError) {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw SlowClientError("socket() failed: errno \(errno)") }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        // Sends give up after 50 ms, so that a pipelining loop checks its clock while the server reads nothing.
        var wait = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw SlowClientError("connect to port \(port) failed: errno \(code)")
        }
    }

    deinit { close(descriptor) }

    /// Sends all of `text`; `false` when the server closed or reset the connection (or a send timed out).
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = sendBytes(bytes[sent...])
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    /// Waits up to `patience` for the server to close the connection, reading (and dropping) whatever it sends;
    /// returns how long that took, or `nil` when it still held the connection open.
    public func waitForClose(patience: Duration) -> Duration? {
        let clock = ContinuousClock()
        let start = clock.now
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while clock.now - start < patience {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = patience - (clock.now - start)
            let ready = poll(&poller, 1, Int32(max(1, left.milliseconds)))
            if ready <= 0 { continue }
            let count = recv(descriptor, &buffer, 65_536, 0)
            if count <= 0 { return clock.now - start }
        }
        return nil
    }

    /// Sends `request` again and again without reading a reply, until a send fails because the server closed the
    /// connection, or `patience` passes. Returns how long until the server closed it (`nil`: it never did) and how
    /// many requests went out whole.
    public func pipelineWithoutReading(_ request: String, patience: Duration) -> (closedAfter: Duration?, sent: Int) {
        let clock = ContinuousClock()
        let start = clock.now
        // Many requests per send, so that the client outpaces the server as the attack does.
        let batch = String(repeating: request, count: 64)
        let bytes = Array(batch.utf8)
        var sentBytes = 0
        while clock.now - start < patience {
            let offset = sentBytes % bytes.count
            let count = sendBytes(bytes[offset...])
            if count > 0 {
                sentBytes += count
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                continue  // the server reads nothing: the send timed out; try again until patience runs out
            } else {
                return (clock.now - start, sentBytes / request.utf8.count)
            }
        }
        return (nil, sentBytes / request.utf8.count)
    }

    /// Sends `request` and waits up to `patience` for the start of a reply; returns what arrived first, or `nil`.
    public func exchange(_ request: String, patience: Duration) -> String? {
        guard send(request) else { return nil }
        return reply(patience: patience)
    }

    /// Waits up to `patience` for a reply to what was sent before; `nil` when none came.
    public func reply(patience: Duration) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(patience.milliseconds)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &buffer, 65_536, 0)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// This process's resident memory, in bytes (Linux; 0 elsewhere): the servers of these tests run in it.
    public static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    private func sendBytes(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.withUnsafeBytes { buffer in
            #if canImport(Glibc)
            Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            #else
            Darwin.send(descriptor, buffer.baseAddress, buffer.count, 0)
            #endif
        }
    }
}

/// Why a ``SlowClient`` could not connect.
public struct SlowClientError: Error, CustomStringConvertible {
    /// What failed, with errno.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
