import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import Synchronization

/// Gives the memory of connections that backed up with unsent replies back to the operating system once they close.
///
/// Why: glibc's allocator keeps what the process frees, in the arena of the thread that allocated it. Fifty clients
/// that pipelined requests and never read the replies took a collector's or a dashboard's resident memory from 50 MB
/// to 80–121 MB, and it stayed there after the connections were closed (issue 32): freed, but held. `malloc_trim(0)`
/// hands the free pages back (to 51–62 MB in the same case); tuning the allocator at start (`M_ARENA_MAX` 1 or 2,
/// `M_TRIM_THRESHOLD` and `M_MMAP_THRESHOLD` at 128 KiB) left 78–97 MB, because the freed chunks lie between live
/// ones rather than at the top of a heap.
///
/// When: on events, never on a period. ``ConnectionDeadline`` calls ``released(on:)`` when a connection closes with
/// its replies backed up (closed for not reading them, or gone while unwritable). The trim runs once such closes stop
/// for ``settle`` (a burst of them costs one trim), at most ``maximumDelay`` after the first (a steady trickle cannot
/// put it off for ever), and never sooner than ``interval`` after the last one. It runs off the event loops: walking
/// a fragmented heap is not free (150 ms to 1.3 s over 700 MB of small freed chunks in eight arenas, measured in C).
/// Time is the event loop's (`EventLoop.now`), so tests drive it with an embedded loop. Without glibc (musl, Darwin)
/// the trim does nothing; the packaged build (`--static-swift-stdlib`) still links glibc, so it trims.
public final class MemoryReturn: Sendable {
    /// How long after the last release the trim waits for more.
    public let settle: TimeAmount
    /// How long after the first release of a burst the trim runs at the latest, closes or not.
    public let maximumDelay: TimeAmount
    /// The least time between two trims.
    public let interval: TimeAmount
    private let trim: @Sendable () -> Void
    private let state = Mutex(State())

    private struct State {
        /// The first and the last release since the last trim, `nil` when none waits.
        var firstRelease: NIODeadline?
        var lastRelease: NIODeadline?
        var lastTrim: NIODeadline?
        /// Whether a timer is set (one at a time, on the loop of the release that set it).
        var isScheduled = false
        var trims = 0
    }

    /// The process's one: the allocator's arenas are the process's, whichever listener freed what.
    public static let process = MemoryReturn()

    /// A return that waits `settle` after the last release (at most `maximumDelay` after the first), at most once
    /// per `interval`, then calls `trim` on a background queue (by default `malloc_trim(0)`).
    public init(settle: TimeAmount = .milliseconds(250), maximumDelay: TimeAmount = .seconds(2),
                interval: TimeAmount = .seconds(1), trim: @escaping @Sendable () -> Void = MemoryReturn.trimHeap) {
        self.settle = settle
        self.maximumDelay = maximumDelay
        self.interval = interval
        self.trim = trim
    }

    /// Hands the allocator's free pages back to the operating system (glibc's `malloc_trim(0)`; nothing elsewhere).
    @Sendable public static func trimHeap() {
        _ = mallocTrim?(0)
    }

    /// glibc's `malloc_trim`, looked up at run time: `<malloc.h>` is not in Swift's Glibc module, and a libc
    /// without it (musl, Darwin) has nothing to call.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(dlopen(nil, RTLD_LAZY), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// Trims started so far.
    public var trims: Int { state.withLock { $0.trims } }

    /// A connection that backed up with unsent replies closed on `loop`: its memory is free, and a trim comes.
    public func released(on loop: any EventLoop) {
        let now = loop.now
        let first = state.withLock { state -> NIODeadline? in
            if state.firstRelease == nil { state.firstRelease = now }
            state.lastRelease = now
            guard !state.isScheduled else { return nil }
            state.isScheduled = true
            return due(state)
        }
        if let first { schedule(at: first, on: loop) }
    }

    /// When the trim for the releases waiting in `state` may run.
    private func due(_ state: State) -> NIODeadline {
        guard let first = state.firstRelease, let last = state.lastRelease else { return .distantFuture }
        let due = min(last + settle, first + maximumDelay)
        guard let lastTrim = state.lastTrim else { return due }
        return max(due, lastTrim + interval)
    }

    private func schedule(at deadline: NIODeadline, on loop: any EventLoop) {
        loop.scheduleTask(deadline: deadline) { self.fire(on: loop) }
    }

    /// The timer: trims when the releases have settled, or sets itself again for when they will have.
    private func fire(on loop: any EventLoop) {
        let now = loop.now
        let later = state.withLock { state -> NIODeadline? in
            let at = due(state)
            if now < at { return at }
            state.firstRelease = nil
            state.lastRelease = nil
            state.lastTrim = now
            state.isScheduled = false
            state.trims += 1
            return nil
        }
        if let later { return schedule(at: later, on: loop) }
        DispatchQueue.global(qos: .utility).async(execute: trim)
    }
}
