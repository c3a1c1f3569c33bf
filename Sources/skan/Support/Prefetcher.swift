import Dispatch

/// Produces the next item on a background queue while the caller works on the current one, so that reading
/// input overlaps verifying it instead of leaving every core idle between batches.
///
/// `@unchecked Sendable`: `pending` is written only on `queue` before `ready` is signalled and read only after
/// `next()` waits on `ready`; the semaphore orders the two. One item is produced ahead, never more.
final class Prefetcher<Item: Sendable>: @unchecked Sendable {
    private let queue = DispatchQueue(label: "skan.prefetch")
    private let ready = DispatchSemaphore(value: 0)
    private let produce: () throws -> Item?
    private var pending: Result<Item?, any Error>?

    /// Starts producing the first item at once.
    init(_ produce: @escaping () throws -> Item?) {
        self.produce = produce
        schedule()
    }

    /// The next item, `nil` at the end; rethrows what producing it threw.
    func next() throws -> Item? {
        ready.wait()
        let result = pending!
        pending = nil
        if case .success(.some) = result { schedule() }
        return try result.get()
    }

    private func schedule() {
        queue.async {
            self.pending = Result { try self.produce() }
            self.ready.signal()
        }
    }
}

/// Writes on a background queue in submission order, at most `depth` writes behind the caller.
final class OrderedWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "skan.writer")
    private let slots: DispatchSemaphore
    private let write: @Sendable ([UInt8]) -> Void

    init(depth: Int = 2, write: @escaping @Sendable ([UInt8]) -> Void) {
        slots = DispatchSemaphore(value: depth)
        self.write = write
    }

    func submit(_ bytes: [UInt8]) { submit(parts: [bytes]) }

    /// Queues several buffers as one unit of work, written in order: no need to join them into one copy first.
    func submit(parts: [[UInt8]]) {
        slots.wait()
        queue.async {
            for bytes in parts { self.write(bytes) }
            self.slots.signal()
        }
    }

    /// Waits until every submitted write is done.
    func drain() {
        queue.sync {}
    }
}
