import Foundation

/// The clock a delivery waits on: simulated send times in, real waiting (or none) out.
///
/// Injected so that `--speed` compresses weeks into minutes in the command, and tests never sleep.
public protocol DeliveryClock: AnyObject {
    /// Returns when simulated time `time` (milliseconds since 1970) has come.
    func wait(until time: Int64)
}

/// Never waits: delivery as fast as the collector answers.
public final class ImmediateClock: DeliveryClock {
    /// A clock that never waits.
    public init() {}
    public func wait(until time: Int64) {}
}

/// Maps simulated time onto real time, `speed` simulated seconds per real second, starting at the first wait.
public final class ScaledClock: DeliveryClock {
    private let speed: Double
    private var origin: (simulated: Int64, real: Date)?

    /// A clock running `speed` times faster than real time.
    public init(speed: Double) {
        self.speed = speed
    }

    public func wait(until time: Int64) {
        guard let origin else {
            origin = (time, Date())
            return
        }
        let target = origin.real.addingTimeInterval(Double(time - origin.simulated) / 1000 / speed)
        if target > Date() { Thread.sleep(until: target) }
    }
}
