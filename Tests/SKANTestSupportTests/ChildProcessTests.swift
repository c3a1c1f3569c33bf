import Foundation
import SKANTestSupport
import Testing

@Suite("Child processes", .timeLimit(.minutes(1)))
struct ChildProcessTests {
    @Test("a child inherits no socket of the test process, so no port it listened on outlives its close")
    func noInheritedSockets() throws {
        // A listening socket opened as SwiftNIO opens its own: without close-on-exec.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(listener, 8) == 0)
        let (exitCode, output, errors) = try ChildProcess.run("/bin/sh", ["-c", "ls -l /proc/$$/fd"])
        #expect(exitCode == 0, "\(errors)")
        #expect(!output.contains("socket:"), "the child holds the test process's sockets:\n\(output)")
        #expect(output.contains("/dev/null"), "the listing is of the child's descriptors: \(output)")
    }
}
