import Foundation
import SKANTestSupport
import Testing

@Suite("Raw HTTP exchanges", .timeLimit(.minutes(1)))
struct RawHTTPTests {
    @Test("a port that accepts into its backlog and never answers fails the exchange after its patience")
    func neverAnswered() async throws {
        // Listening, never accepting: the kernel completes the connection and queues it, as it did for a port
        // another process held open.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        try #require(bound && listen(listener, 8) == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let start = ContinuousClock.now
        await #expect(throws: RawHTTPTimeout.self) {
            _ = try await RawHTTP.exchange(port: port, "GET / HTTP/1.1\r\nHost: t\r\n\r\n", responses: 1,
                                           patience: .milliseconds(300))
        }
        #expect(ContinuousClock.now - start < .seconds(10))
    }
}
