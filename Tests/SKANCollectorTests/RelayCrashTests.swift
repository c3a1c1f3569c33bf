import Foundation
import SKANTestSupport
import Testing

/// The real `skan serve --relay`, killed with SIGKILL while it delivers, sends every postback it acknowledged once
/// it is started again: the outbox entry commits with the postback, and a killed sender's lease runs out.
@Suite("Relay crash recovery", .temporaryFolder, .serialized)
struct RelayCrashTests {
    @Test("every acknowledged postback reaches the receiver across a SIGKILL during delivery (SQLite)",
          .enabled(if: CrashRecoveryTests.isBuilt, "needs the skan binary beside the tests"), .timeLimit(.minutes(2)))
    func sigkillDuringDelivery() async throws {
        let folder = try TemporaryFolder.current.url
        let path = folder.appendingPathComponent("skan.sqlite").path
        // Slow enough that delivery is under way, not finished, when the kill comes.
        let receiver = Receiver { _, attempt in attempt == 1 ? .status(503) : .accept }
        let port = try await receiver.start()
        let relay = folder.appendingPathComponent("relay.json")
        // A short lease, so that what the killed collector held comes back within seconds, not the default 19 s.
        try #"{"destinations": [{"name": "partner", "url": "http://127.0.0.1:\#(port)/in", "in-flight": 4, "timeout-seconds": 1, "lease-seconds": 3}]}"#
            .write(to: relay, atomically: true, encoding: .utf8)
        let arguments = ["--relay", relay.path]
        let ids = try await CrashRecoveryTests.loadAndKill(database: path, extraArguments: arguments)
        #expect(ids.count >= 300)
        let second = try ServerProcess(binary: CrashRecoveryTests.binary, database: path, extraArguments: arguments)
        // A killed sender's entries wait for their lease; entries it never claimed go at once.
        let delivered = await Self.eventually(seconds: 60) { Set(Self.transactionIDs(receiver)).isSuperset(of: ids) }
        second.kill(SIGTERM)
        await second.waitUntilExit()
        let received = Set(Self.transactionIDs(receiver))
        let missing = Set(ids).subtracting(received)
        #expect(delivered && missing.isEmpty, "the receiver never got \(missing.count) of \(ids.count) acknowledged postbacks")
        // One key per postback: repeats (the 503s, and what the kill cut) carried the same key.
        #expect(Set(receiver.attempts.map(\.key)).count == receiver.accepted.count)
        await receiver.stop()
    }

    static func transactionIDs(_ receiver: Receiver) -> [String] {
        receiver.accepted.values.compactMap { body in
            (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["transaction-id"] as? String
        }
    }

    /// Whether `condition` holds within `seconds`, checked every `interval`. Bounded twice over: by the deadline, and
    /// by cancellation (a suite's time limit), after which it stops at once rather than spinning on a sleep that
    /// throws without waiting.
    static func eventually(seconds: Double, every interval: Duration = .milliseconds(100),
                           _ condition: () -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            do { try await Task.sleep(for: interval) } catch { break }
        }
        return condition()
    }
}
