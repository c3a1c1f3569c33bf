import Foundation
import SKANTestSupport
import Testing

@Suite("Raw HTTP exchanges", .timeLimit(.minutes(1)))
struct RawHTTPTests {
    @Test("a port that accepts into its backlog and never answers fails the exchange after its patience")
    func neverAnswered() async throws {
        // Listening, never accepting: the kernel completes the connection and queues it, as it did for a port
        // another process held open.
        let listener = try NeverAcceptingListener()
        let port = listener.port
        let start = ContinuousClock.now
        await #expect(throws: RawHTTPTimeout.self) {
            _ = try await RawHTTP.exchange(port: port, "GET / HTTP/1.1\r\nHost: t\r\n\r\n", responses: 1,
                                           patience: .milliseconds(300))
        }
        #expect(ContinuousClock.now - start < .seconds(10))
        withExtendedLifetime(listener) {}
    }
}
