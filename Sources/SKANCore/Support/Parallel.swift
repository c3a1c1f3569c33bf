import Dispatch

/// Runs `work` over every element on all cores and returns the results in input order.
///
/// For CPU-bound batches (verifying, signing) where every element costs about the same: Dispatch hands out
/// iterations one at a time to as many threads as there are cores.
public enum Parallel {
    public static func map<Element: Sendable, Result: Sendable>(
        _ elements: [Element], _ work: @Sendable (Element) -> Result
    ) -> [Result] {
        let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: elements.count)
        results.initialize(repeating: nil)
        // deallocate() alone would leak every result: the slots hold strings that must be released first.
        defer {
            results.deinitialize()
            results.deallocate()
        }
        let box = SendableBuffer(buffer: results)
        elements.withUnsafeBufferPointer { input in
            let source = SendableInput(buffer: input)
            forEach(0..<elements.count) { index in
                box.buffer[index] = work(source.buffer[index])
            }
        }
        return results.map { $0! }
    }

    /// Runs `work` once for every index in `indices` on all cores, and returns when every call has returned.
    ///
    /// For work that keeps its own results (a simulation chunk written to a file, a count per thread) or whose
    /// results ``map(_:_:)`` would hold in memory all at once.
    public static func forEach(_ indices: Range<Int>, _ work: @Sendable (Int) -> Void) {
        let first = indices.lowerBound
        // Dispatch hands iterations to idle threads one by one, so a slow element never stalls a core.
        DispatchQueue.concurrentPerform(iterations: indices.count) { work(first + $0) }
    }

    /// Each iteration writes only its own slot, and `map` reads them after `forEach` returns.
    private struct SendableBuffer<T>: @unchecked Sendable { let buffer: UnsafeMutableBufferPointer<T?> }
    /// The input is only read while `forEach` runs, inside `withUnsafeBufferPointer`.
    private struct SendableInput<T>: @unchecked Sendable { let buffer: UnsafeBufferPointer<T> }
}

extension Parallel {
    /// Starts `work` over every element on the cores and returns at once; ``ParallelMap/wait()`` collects the
    /// results in input order.
    ///
    /// A caller that starts the next map before waiting for this one keeps the cores busy across the boundary:
    /// with ``map(_:_:)`` every batch ends at a barrier where one core can idle until the other's last element is
    /// done.
    public static func start<Element: Sendable, Result: Sendable>(
        _ elements: [Element], _ work: @escaping @Sendable (Element) -> Result
    ) -> ParallelMap<Result> {
        ParallelMap(elements, work)
    }
}

/// A map running on Dispatch's global queue (one thread per core); see ``Parallel/start(_:_:)``.
///
/// `@unchecked Sendable`: each work item writes only its own slot, and the slots are read only after the group
/// has finished (in ``wait()`` and `deinit`).
public final class ParallelMap<Result: Sendable>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<Result?>
    private let group = DispatchGroup()

    fileprivate init<Element: Sendable>(_ elements: [Element], _ work: @escaping @Sendable (Element) -> Result) {
        slots = .allocate(capacity: elements.count)
        slots.initialize(repeating: nil)
        let output = Slots(buffer: slots)
        for (index, element) in elements.enumerated() {
            DispatchQueue.global().async(group: group) { output.buffer[index] = work(element) }
        }
    }

    /// Blocks until every element is done and returns the results in input order.
    public func wait() -> [Result] {
        group.wait()
        return slots.map { $0! }
    }

    /// The results in input order, for async callers: suspends instead of blocking one of Swift's concurrency
    /// threads while the work runs on Dispatch's.
    public func value() async -> [Result] {
        await withCheckedContinuation { continuation in
            group.notify(queue: .global()) { continuation.resume(returning: self.slots.map { $0! }) }
        }
    }

    deinit {
        // Work items still running write into the slots: they must finish before the memory goes.
        group.wait()
        slots.deinitialize()
        slots.deallocate()
    }

    private struct Slots: @unchecked Sendable { let buffer: UnsafeMutableBufferPointer<Result?> }
}
