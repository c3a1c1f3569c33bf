import NIOCore
import NIOEmbedded
import SKANHTTP
import Synchronization
import Testing

/// When the memory of connections closed with replies backed up goes back to the system: once per burst of closes,
/// never on a period. Time is an embedded event loop's, moved by hand.
@Suite("Memory return after backed-up connections close")
struct MemoryReturnTests {
    @Test("nothing trims before a release; a burst of releases costs one trim, once they settle")
    func burst() {
        let loop = EmbeddedEventLoop()
        let memory = MemoryReturn(settle: .milliseconds(250), maximumDelay: .seconds(2), interval: .seconds(1), trim: {})
        loop.advanceTime(by: .seconds(10))
        #expect(memory.trims == 0)
        for _ in 0..<3 {
            memory.released(on: loop)
            loop.advanceTime(by: .milliseconds(100))
        }
        // The last release was 100 ms ago: 150 ms more before the trim.
        loop.advanceTime(by: .milliseconds(149))
        #expect(memory.trims == 0)
        loop.advanceTime(by: .milliseconds(1))
        #expect(memory.trims == 1)
        loop.advanceTime(by: .seconds(10))
        #expect(memory.trims == 1)
    }

    @Test("a steady trickle of releases puts the trim off no longer than the maximum delay")
    func trickle() {
        let loop = EmbeddedEventLoop()
        let memory = MemoryReturn(settle: .milliseconds(250), maximumDelay: .seconds(2), interval: .seconds(1), trim: {})
        var trimmedAt: Int?
        for step in 0..<15 {  // a release every 200 ms for 3 s
            memory.released(on: loop)
            loop.advanceTime(by: .milliseconds(200))
            if trimmedAt == nil, memory.trims > 0 { trimmedAt = (step + 1) * 200 }
        }
        #expect(trimmedAt == 2000)
    }

    @Test("two trims are at least the interval apart")
    func interval() {
        let loop = EmbeddedEventLoop()
        let memory = MemoryReturn(settle: .milliseconds(250), maximumDelay: .seconds(2), interval: .seconds(1), trim: {})
        memory.released(on: loop)
        loop.advanceTime(by: .milliseconds(250))
        #expect(memory.trims == 1)
        loop.advanceTime(by: .milliseconds(50))
        memory.released(on: loop)  // settled at 550 ms, but the last trim was at 250 ms
        loop.advanceTime(by: .milliseconds(949))
        #expect(memory.trims == 1)
        loop.advanceTime(by: .milliseconds(1))
        #expect(memory.trims == 2)
    }

    @Test("the trim given runs, off the event loop")
    func runs() async throws {
        let loop = EmbeddedEventLoop()
        let ran = Mutex(0)
        let memory = MemoryReturn(settle: .milliseconds(1), trim: { ran.withLock { $0 += 1 } })
        memory.released(on: loop)
        loop.advanceTime(by: .milliseconds(1))
        for _ in 0..<200 where ran.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(ran.withLock { $0 } == 1)
    }
}
