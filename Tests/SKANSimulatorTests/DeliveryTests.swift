import Testing
@testable import SKANSimulator

@Suite("Delivery to a collector")
struct DeliveryTests {
    /// Answers from a script, then 200.
    final class ScriptedTransport: PostbackTransport {
        var replies: [Int]
        var bodies: [[UInt8]] = []
        init(_ replies: [Int]) { self.replies = replies }
        func send(_ body: [UInt8]) throws -> Int {
            bodies.append(body)
            return replies.isEmpty ? 200 : replies.removeFirst()
        }
    }

    /// Remembers every wait instead of sleeping.
    final class RecordingClock: DeliveryClock {
        var waits: [Int64] = []
        func wait(until time: Int64) { waits.append(time) }
    }

    func record(_ at: Int64, _ body: String) -> SimulatedRecord {
        SimulatedRecord(sendAt: at, destination: "https://c.example", recipient: .adNetwork, postback: Array(body.utf8))
    }

    @Test("a non-200 reply is retried every 24 simulated hours, in time order with later postbacks")
    func retries() throws {
        let transport = ScriptedTransport([500, 503])
        let clock = RecordingClock()
        let delivery = PostbackDelivery(transport: transport, clock: clock)
        let day = SimulatedTime.day
        try delivery.enqueue(record(0, "a"))
        try delivery.enqueue(record(day + 1, "b"))
        try delivery.enqueue(record(3 * day, "c"))
        try delivery.finish()
        #expect(transport.bodies.map { String(decoding: $0, as: UTF8.self) } == ["a", "a", "b", "a", "c"])
        #expect(clock.waits == [0, day, day + 1, 2 * day, 3 * day])
        #expect(delivery.report == .init(delivered: 3, retries: 2, failed: 0))
    }

    @Test("after nine retries over nine days the device gives up")
    func givesUp() throws {
        let transport = ScriptedTransport(Array(repeating: 500, count: 20))
        let clock = RecordingClock()
        let delivery = PostbackDelivery(transport: transport, clock: clock)
        try delivery.enqueue(record(0, "a"))
        try delivery.finish()
        #expect(transport.bodies.count == 10)
        #expect(clock.waits.last == 9 * SimulatedTime.day)
        #expect(delivery.report == .init(delivered: 0, retries: 9, failed: 1))
    }
}
