import Foundation
import NIOCore
import SKANCore

/// Why a listener could not start, in SKANCore's `DomainError` shape: one line naming the address, the port and the
/// option that set it, without SwiftNIO's words (`bind(descriptor:ptr:bytes:)`, errno).
public typealias ListenerError = DomainError<ListenerErrorDomain>

/// The domain of ``ListenerError``.
public enum ListenerErrorDomain: ErrorDomain {}

extension DomainError.Code where Domain == ListenerErrorDomain {
    /// Another socket already listens on the address and port.
    public static let addressInUse = Self("address-in-use")
    /// The address cannot be listened on (not this machine's, not resolvable, or a privileged port).
    public static let cannotListen = Self("cannot-listen")
}

extension DomainError where Domain == ListenerErrorDomain {
    /// The error for `listener` failing to bind with `error`, or `nil` when `error` is not a bind failure.
    static func binding(_ listener: Listener, _ error: any Error) -> ListenerError? {
        let place = "\(ListenerError.url(host: listener.host)):\(listener.port) (\(listener.option))"
        if let io = error as? IOError {
            switch io.errnoCode {
            case EADDRINUSE:
                return ListenerError(.addressInUse, "\(place) is already in use by another process; "
                                     + "choose another \(listener.option) or stop that process")
            case EADDRNOTAVAIL:
                return ListenerError(.cannotListen, "cannot listen on \(place): the address is not one of this machine's")
            case EACCES:
                return ListenerError(.cannotListen, "cannot listen on \(place): permission denied "
                                     + "(ports below 1024 need privileges)")
            default:
                return ListenerError(.cannotListen, "cannot listen on \(place): \(String(cString: strerror(io.errnoCode)))")
            }
        }
        if error is SocketAddressError {
            return ListenerError(.cannotListen, "cannot listen on \(place): the host does not resolve to an address")
        }
        return nil
    }

    /// A host for a URL or an address line: an IPv6 address in brackets.
    static func url(host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}
