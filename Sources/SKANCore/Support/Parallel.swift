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
            // Dispatch hands iterations to idle threads one by one, so a slow record never stalls a core.
            DispatchQueue.concurrentPerform(iterations: elements.count) { index in
                box.buffer[index] = work(source.buffer[index])
            }
        }
        return results.map { $0! }
    }

    /// Each iteration writes only its own slot, and `map` reads them after `concurrentPerform` returns.
    private struct SendableBuffer<T>: @unchecked Sendable { let buffer: UnsafeMutableBufferPointer<T?> }
    /// The input is only read while `concurrentPerform` runs, inside `withUnsafeBufferPointer`.
    private struct SendableInput<T>: @unchecked Sendable { let buffer: UnsafeBufferPointer<T> }
}
