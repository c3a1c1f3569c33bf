/// The conversion value and its 24-hour rolling timer on a device, versions 1.0–3.0 (spec §6.1, §6.2).
public struct ConversionTimer: Sendable, Hashable {
    /// How long the timer runs after registration or an accepted increase.
    public static let length: Int64 = 24 * SimulatedTime.hour

    /// What became of an update call.
    public enum Outcome: Sendable, Hashable {
        /// The value rose; the timer restarted.
        case accepted
        /// Equal to or below the current value: ignored, the timer runs on.
        case notGreater
        /// The timer had run out: the value is final.
        case final
        /// Outside 0...63: an error, nothing changes.
        case outOfRange
    }

    /// The current fine value; `nil` until the app sets one.
    public private(set) var value: Int?
    /// When the value becomes final; `nil` before registration and the first update.
    public private(set) var deadline: Int64?
    /// The time of the last accepted increase, or of registration when there was none.
    public private(set) var lastChange: Int64?

    /// A device before first launch.
    public init() {}

    /// Whether the value is final at `time`.
    public func isFinal(at time: Int64) -> Bool {
        deadline.map { time >= $0 } ?? false
    }

    /// `registerAppForAdNetworkAttribution()` (iOS ≤15.4 behaviour): the first call starts the timer; a later
    /// call does nothing except reset a value already set to 0.
    public mutating func register(at time: Int64) {
        if deadline == nil {
            deadline = time + Self.length
            lastChange = time
        } else if !isFinal(at: time), value != nil {
            value = 0
        }
    }

    /// `updateConversionValue(_:)`: accepted only when greater than the current value.
    @discardableResult
    public mutating func update(_ newValue: Int, at time: Int64) -> Outcome {
        guard (0...63).contains(newValue) else { return .outOfRange }
        if isFinal(at: time) { return .final }
        if let value, newValue <= value { return .notGreater }
        value = newValue
        deadline = time + Self.length
        lastChange = time
        return .accepted
    }
}
