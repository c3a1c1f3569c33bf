import Foundation
import SKANSimulator
import Synchronization

/// The demo's clock: delivery moves it to each postback's simulated send time before posting it, and the collector
/// reads it as the time the postback was received. Nothing waits: simulated weeks pass as fast as the collector
/// answers, and each postback is stored on the day its device sent it.
final class SendTimeClock: DeliveryClock, Sendable {
    private let milliseconds = Mutex<Int64?>(nil)

    /// Moves the clock to `time` (milliseconds since 1970); returns at once.
    func wait(until time: Int64) {
        milliseconds.withLock { $0 = time }
    }

    /// The simulated time of the postback being delivered; now before the first one.
    var date: Date {
        milliseconds.withLock { $0 }.map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? Date()
    }
}
