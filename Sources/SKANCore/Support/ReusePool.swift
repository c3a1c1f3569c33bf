import Synchronization

/// Lends reusable objects (OpenSSL contexts) to one caller at a time, making a new one when none is free.
///
/// OpenSSL contexts are costly to set up and not for concurrent use; a pool ends up with one per thread that has
/// needed one at the same time, without tying them to threads.
final class ReusePool<Object: AnyObject & Sendable>: Sendable {
    private let free = Mutex<[Object]>([])

    init() {}

    /// Runs `body` with an object no other caller holds meanwhile: a free one, or one from `make`. Returns `nil`
    /// when none was free and `make` gave none (out of memory, or OpenSSL refused).
    func withObject<T, E: Error>(orMake make: () -> Object?, _ body: (Object) throws(E) -> T) throws(E) -> T? {
        guard let object = free.withLock({ $0.popLast() }) ?? make() else { return nil }
        defer { free.withLock { $0.append(object) } }
        return try body(object)
    }
}
