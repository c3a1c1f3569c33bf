import Foundation
import NIOCore
import NIOPosix
@testable import SKANRelay
import SKANStore
import SKANTestSupport
import Testing

/// A batch never outlasts its lease: a lane starts no request after the batch's last start, and what it did not
/// start ends `.stopped` (released for the next claim, not counted as tried).
@Suite("Relay lane")
struct RelayLaneTests {
    static func entries(_ count: Int) -> [OutboxEntry] {
        (1 ... count).map { index in
            OutboxEntry(id: Int64(index), item: OutboxItem(destination: "partner", idempotencyKey: "key-\(index)",
                                                           body: Array(#"{"n":\#(index)}"#.utf8)),
                        attempts: 0, createdAt: Date())
        }
    }

    @Test("a batch whose last start has passed sends its first round only (which its lease covers): the rest is stopped")
    func pastLastStart() async throws {
        let receiver = Receiver()
        let port = try await receiver.start()
        // Four in flight: one round is four requests.
        let lane = try RelayLane(destination: RelayHarness.destination(port: port, inFlight: 4),
                                 group: MultiThreadedEventLoopGroup.singleton)
        let attempts = try await lane.send(Self.entries(10), lastStart: .now() - .seconds(1)).get()
        // Had nothing started, a batch claimed close to its last start would be released and claimed again at once.
        #expect(attempts == Array(repeating: .answered(status: 200, retryAfter: nil), count: 4)
            + Array(repeating: .stopped, count: 6))
        #expect(receiver.attempts.map(\.key).sorted() == (1 ... 4).map { "key-\($0)" })
        lane.stop()
        await receiver.stop()
    }

    @Test("a batch within its lease sends every entry, each once, in one lane's connections")
    func withinLease() async throws {
        let receiver = Receiver()
        let port = try await receiver.start()
        let lane = try RelayLane(destination: RelayHarness.destination(port: port, inFlight: 3),
                                 group: MultiThreadedEventLoopGroup.singleton)
        let attempts = try await lane.send(Self.entries(20), lastStart: .now() + .seconds(60)).get()
        #expect(attempts == Array(repeating: .answered(status: 200, retryAfter: nil), count: 20))
        #expect(Set(receiver.attempts.map(\.key)) == Set((1 ... 20).map { "key-\($0)" }))
        #expect(receiver.attempts.count == 20)
        lane.stop()
        await receiver.stop()
    }

    @Test("a request that runs past the last start ends the batch: the entries after it are stopped, never sent")
    func stopsAtLastStart() async throws {
        let receiver = Receiver { _, _ in .stall }
        let port = try await receiver.start()
        let lane = try RelayLane(destination: RelayHarness.destination(port: port, inFlight: 1, timeout: .milliseconds(400)),
                                 group: MultiThreadedEventLoopGroup.singleton)
        // The first request stalls until its 400 ms timeout; the last start is 100 ms away.
        let attempts = try await lane.send(Self.entries(3), lastStart: .now() + .milliseconds(100)).get()
        guard case .failed = attempts[0] else {
            Issue.record("the first request should have timed out, got \(attempts[0])")
            return
        }
        #expect(Array(attempts.dropFirst()) == [.stopped, .stopped])
        #expect(receiver.attempts.map(\.key) == ["key-1"])
        lane.stop()
        await receiver.stop()
    }
}
