#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// The process's limit on open descriptors, which bounds how many connections a server can hold.
///
/// The soft limit is often 1,024 while the hard limit is far higher; a server that never raises it runs out of
/// descriptors at about a thousand idle connections, and then cannot even accept the connection that would
/// tell it so. Raising the soft limit to the hard one costs nothing.
public struct DescriptorLimit: Sendable, Hashable {
    /// The soft limit before ``raise()``.
    public let previous: Int
    /// The soft limit in force now.
    public let soft: Int
    /// The hard limit, the most the soft limit may be raised to.
    public let hard: Int

    /// Descriptors kept back from connections for the database, its journal, logs and the listening socket.
    public static let reserve = 64

    /// Raises the soft limit to the hard limit (where the hard limit is unlimited, to a million), and says what
    /// it was and is.
    public static func raise() -> DescriptorLimit {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return DescriptorLimit(previous: 1024, soft: 1024, hard: 1024) }
        let previous = Int(clamping: limit.rlim_cur)
        // RLIM_INFINITY is all ones; its C macro does not import into Swift as an unsigned value.
        let target = limit.rlim_max == rlim_t.max ? rlim_t(1 << 20) : limit.rlim_max
        if limit.rlim_cur < target {
            var raised = limit
            raised.rlim_cur = target
            if setrlimit(Self.resource, &raised) == 0 { limit = raised }
        }
        return DescriptorLimit(previous: previous, soft: Int(clamping: limit.rlim_cur), hard: Int(clamping: limit.rlim_max))
    }

    /// The most connections to hold open: the soft limit less the ``reserve``, so that accepting a connection
    /// never fails for want of a descriptor (SwiftNIO's accept loop retries EMFILE at once, spinning a core).
    public var connectionBudget: Int { max(1, soft - Self.reserve) }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
