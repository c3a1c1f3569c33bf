import SKANCore
import Synchronization
import Testing

@Suite("Parallel map")
struct ParallelTests {
    /// Counts live instances, so a test can see whether results were released.
    final class Tracked: Sendable {
        static let alive = Atomic<Int>(0)
        let value: Int
        init(_ value: Int) {
            self.value = value
            Self.alive.add(1, ordering: .relaxed)
        }
        deinit { Self.alive.subtract(1, ordering: .relaxed) }
    }

    @Test("results come back in input order, and none is kept alive after the caller drops them")
    func orderAndRelease() {
        let before = Tracked.alive.load(ordering: .relaxed)
        do {
            let results = Parallel.map(Array(0..<5_000)) { Tracked($0 * 2) }
            #expect(results.map(\.value) == (0..<5_000).map { $0 * 2 })
        }
        // Before the fix the buffer was deallocated without being deinitialized: 5,000 instances leaked.
        #expect(Tracked.alive.load(ordering: .relaxed) == before)
    }
}
