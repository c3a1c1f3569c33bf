import SKANCore

/// The three conversion windows of SKAdNetwork 4.0 on a device (spec §6.1, §6.3): fine values only in the
/// first, coarse values in all, values free to go down, `lockWindow` ending a window at once.
public struct ConversionWindows: Sendable, Hashable {
    /// Window ends after first launch: 2, 7 and 35 days.
    public static let ends: [Int64] = [2 * SimulatedTime.day, 7 * SimulatedTime.day, 35 * SimulatedTime.day]
    /// Window starts after first launch.
    public static let starts: [Int64] = [0, 2 * SimulatedTime.day, 7 * SimulatedTime.day]
    /// The random send delay after a window closes: 24–48 h for the first, 24–144 h for the others.
    public static let delays: [ClosedRange<Int64>] = [
        24 * SimulatedTime.hour...48 * SimulatedTime.hour,
        24 * SimulatedTime.hour...144 * SimulatedTime.hour,
        24 * SimulatedTime.hour...144 * SimulatedTime.hour,
    ]

    /// Where the windows end and how long devices wait to send: Apple's 4.0 timing, or AdAttributionKit's
    /// Developer Mode (spec §8.3: windows of 0–3, 3–6 and 6–9 minutes, postbacks 5–10 minutes after each).
    public struct Timing: Sendable, Hashable {
        /// Window ends after the conversion's start.
        public var ends: [Int64]
        /// The random send delay after each window closes.
        public var delays: [ClosedRange<Int64>]

        /// The 4.0 and AdAttributionKit production timing.
        public static let standard = Timing(ends: ConversionWindows.ends, delays: ConversionWindows.delays)
        /// Developer Mode.
        public static let developer = Timing(
            ends: [3 * SimulatedTime.minute, 6 * SimulatedTime.minute, 9 * SimulatedTime.minute],
            delays: Array(repeating: 5 * SimulatedTime.minute...10 * SimulatedTime.minute, count: 3))
    }

    /// What one window reports when it closes.
    public struct Snapshot: Sendable, Hashable {
        /// The fine value (first window only).
        public var fine: Int?
        /// The coarse value.
        public var coarse: CoarseValue?
        /// When the fine value was set.
        public var fineSetAt: Int64?
        /// When the coarse value was set (in this window or, carried over, an earlier one).
        public var coarseSetAt: Int64?
        /// When the postback was prepared: the window's end or the lock.
        public var preparedAt: Int64
        /// Whether the app locked the window.
        public var locked: Bool
    }

    /// What became of an update call.
    public enum Outcome: Sendable, Hashable {
        case accepted
        /// The fine value was dropped because the first window is over; the coarse part, if any, applied.
        case fineIgnored
        /// The window is locked or all windows are over.
        case closed
        /// Fine value outside 0...63: an error, nothing changes.
        case outOfRange
    }

    /// First launch, from which windows are measured.
    public let firstLaunch: Int64
    private var fine: Int?
    private var coarse: CoarseValue?
    private var fineSetAt: Int64?
    private var coarseSetAt: Int64?
    private let coarseCarriesOver: Bool
    /// Where the windows end.
    public let timing: Timing
    /// Closed windows, in order.
    public private(set) var snapshots: [Snapshot] = []
    /// How many windows this conversion has: 3, fewer once a later conversion removed those not begun.
    private var windowCount = 3

    /// Windows for an app first launched (or a conversion started) at `firstLaunch`.
    public init(firstLaunch: Int64, coarseCarriesOver: Bool = true, timing: Timing = .standard) {
        self.firstLaunch = firstLaunch
        self.coarseCarriesOver = coarseCarriesOver
        self.timing = timing
    }

    /// The window open at `time`, if any.
    public func window(at time: Int64) -> Int? {
        let since = time - firstLaunch
        guard since >= 0 else { return nil }
        return timing.ends.firstIndex { since < $0 }
    }

    /// Closes every window that ended before `time`.
    public mutating func advance(to time: Int64) {
        while snapshots.count < windowCount, firstLaunch + timing.ends[snapshots.count] <= time {
            close(at: firstLaunch + timing.ends[snapshots.count], locked: false)
        }
    }

    /// What a new AdAttributionKit conversion does to this earlier one when conversions may not overlap (spec §8.3a,
    /// Apple: the system "locks the active postbacks from the prior conversion" and "removes postbacks from the prior
    /// conversions that you haven't registered"): the window open at `time` is prepared with the values it holds
    /// then, and the windows that have not begun are removed, so they send nothing.
    public mutating func supersede(at time: Int64) {
        // A conversion not yet begun has no postbacks to lock or remove.
        guard time >= firstLaunch else { return }
        advance(to: time)
        guard snapshots.count < windowCount else { return }
        if window(at: time) == snapshots.count { close(at: time, locked: true) }
        windowCount = snapshots.count
    }

    private mutating func close(at time: Int64, locked: Bool) {
        let first = snapshots.isEmpty
        snapshots.append(Snapshot(fine: first ? fine : nil, coarse: coarse, fineSetAt: first ? fineSetAt : nil,
                                  coarseSetAt: coarseSetAt, preparedAt: time, locked: locked))
        if !coarseCarriesOver { coarse = nil; coarseSetAt = nil }
    }

    /// `updatePostbackConversionValue(_:coarseValue:lockWindow:)`; pass `nil` for a part the app does not set.
    @discardableResult
    public mutating func update(fine newFine: Int?, coarse newCoarse: CoarseValue?, lock: Bool, at time: Int64) -> Outcome {
        advance(to: time)
        if let newFine, !(0...63).contains(newFine) { return .outOfRange }
        guard let window = window(at: time), window == snapshots.count, window < windowCount else { return .closed }
        var outcome = Outcome.accepted
        if let newFine {
            if window == 0 { fine = newFine; fineSetAt = time } else { outcome = .fineIgnored }
        }
        if let newCoarse { coarse = newCoarse; coarseSetAt = time }
        if lock { close(at: time, locked: true) }
        return outcome
    }

    /// Closes all windows (the end of the simulation) and returns their snapshots: three, or those a later
    /// conversion left (``supersede(at:)``).
    public mutating func finish() -> [Snapshot] {
        advance(to: .max)
        return snapshots
    }
}
