import SKANCore
import Testing
@testable import SKANSimulator

@Suite("Conversion values on the device")
struct ConversionStateTests {
    let hour = SimulatedTime.hour

    @Test("≤3.0: only a greater value is accepted and restarts the timer; out of range changes nothing")
    func timer() {
        var timer = ConversionTimer()
        timer.register(at: 0)
        #expect(timer.deadline == 24 * hour)
        #expect(timer.update(5, at: hour) == .accepted)
        #expect(timer.deadline == 25 * hour)
        #expect(timer.update(5, at: 2 * hour) == .notGreater)
        #expect(timer.update(3, at: 2 * hour) == .notGreater)
        #expect(timer.update(64, at: 2 * hour) == .outOfRange)
        #expect(timer.update(-1, at: 2 * hour) == .outOfRange)
        #expect(timer.value == 5 && timer.deadline == 25 * hour)
        #expect(timer.update(9, at: 25 * hour) == .final)
        #expect(timer.value == 5)
    }

    @Test("registerAppForAdNetworkAttribution: a later call resets a set value to 0 and keeps the timer")
    func register() {
        var timer = ConversionTimer()
        timer.register(at: 0)
        timer.register(at: hour)
        #expect(timer.value == nil && timer.deadline == 24 * hour)
        timer.update(7, at: 2 * hour)
        timer.register(at: 3 * hour)
        #expect(timer.value == 0 && timer.deadline == 26 * hour)
    }

    @Test("4.0: fine only in window 1, values may go down, lock ends a window at once")
    func windows() {
        var windows = ConversionWindows(firstLaunch: 0)
        #expect(windows.update(fine: 30, coarse: .high, lock: false, at: hour) == .accepted)
        #expect(windows.update(fine: 10, coarse: .low, lock: false, at: 2 * hour) == .accepted)
        #expect(windows.update(fine: 70, coarse: .high, lock: false, at: 3 * hour) == .outOfRange)
        #expect(windows.update(fine: 12, coarse: .medium, lock: true, at: 4 * hour) == .accepted)
        #expect(windows.update(fine: 40, coarse: .high, lock: false, at: 5 * hour) == .closed)
        #expect(windows.update(fine: 50, coarse: nil, lock: false, at: 3 * SimulatedTime.day) == .fineIgnored)
        #expect(windows.update(fine: nil, coarse: .high, lock: false, at: 10 * SimulatedTime.day) == .accepted)
        let snapshots = windows.finish()
        #expect(snapshots.count == 3)
        // Each value remembers the update that set it: the envelope's last-update-at. A carried-over coarse value
        // keeps its time; an ignored fine value sets none.
        #expect(snapshots[0] == .init(fine: 12, coarse: .medium, fineSetAt: 4 * hour, coarseSetAt: 4 * hour, preparedAt: 4 * hour, locked: true))
        #expect(snapshots[1] == .init(fine: nil, coarse: .medium, coarseSetAt: 4 * hour, preparedAt: 7 * SimulatedTime.day, locked: false))
        #expect(snapshots[2] == .init(fine: nil, coarse: .high, coarseSetAt: 10 * SimulatedTime.day, preparedAt: 35 * SimulatedTime.day, locked: false))
    }

    @Test("source identifiers keep their trailing digits by default, leading ones when set", arguments: [
        (5239, 2, SimulationSettings.DigitSide.trailing, "39"), (5239, 3, .trailing, "239"), (5239, 4, .trailing, "5239"),
        (5239, 2, .leading, "52"), (5239, 3, .leading, "523"), (39, 4, .trailing, "39"),
    ])
    func truncation(identifier: Int, digits: Int, side: SimulationSettings.DigitSide, expected: String) {
        #expect(PrivacyTier.truncate(identifier, digits: digits, side: side) == expected)
        #expect(SimulationSettings().sourceIdentifierDigits == .trailing)
    }
}
