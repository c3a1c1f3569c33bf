import SKANCore
import Synchronization
import Testing

// Serialized: the tests count live `Tracked` instances in one shared counter.
@Suite("Parallel map", .serialized)
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

    @Test("forEach runs every index of the range once, a range not starting at 0 included")
    func forEachIndex() {
        let counts = Mutex([Int](repeating: 0, count: 300))
        Parallel.forEach(100..<400) { index in counts.withLock { $0[index - 100] += 1 } }
        #expect(counts.withLock { $0 } == [Int](repeating: 1, count: 300))
        Parallel.forEach(0..<0) { _ in Issue.record("an empty range runs no work") }
    }

    @Test("maps started one after another each give their own results in input order")
    func overlapping() {
        let first = Parallel.start(Array(0..<2_000)) { $0 * 3 }
        let second = Parallel.start(Array(0..<2_000)) { -$0 }
        #expect(second.wait() == (0..<2_000).map { -$0 })
        #expect(first.wait() == (0..<2_000).map { $0 * 3 })
    }

    @Test("an async caller awaits the same results in input order")
    func awaited() async {
        let input = Array(0..<5_000)
        #expect(await Parallel.start(input) { $0 * 3 }.value() == input.map { $0 * 3 })
        #expect(await Parallel.start([Int]()) { $0 }.value().isEmpty)
    }

    @Test("results are released with the map, including a map never waited for")
    func release() {
        let before = Tracked.alive.load(ordering: .relaxed)
        do {
            let waited = Parallel.start(Array(0..<1_000)) { Tracked($0) }
            #expect(waited.wait().map(\.value) == Array(0..<1_000))
            _ = Parallel.start(Array(0..<1_000)) { Tracked($0) }
        }
        #expect(Tracked.alive.load(ordering: .relaxed) == before)
    }
}
