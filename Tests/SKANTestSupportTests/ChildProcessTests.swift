import Foundation
import SKANTestSupport
import Testing

@Suite("Child processes", .timeLimit(.minutes(1)))
struct ChildProcessTests {
    @Test("a child inherits no socket of the test process, so no port it listened on outlives its close")
    func noInheritedSockets() throws {
        let listener = try NeverAcceptingListener()
        let (exitCode, output, errors) = try ChildProcess.run("/bin/sh", ["-c", "ls -l /proc/$$/fd"])
        #expect(exitCode == 0, "\(errors)")
        #expect(!output.contains("socket:"), "the child holds the test process's sockets:\n\(output)")
        #expect(output.contains("/dev/null"), "the listing is of the child's descriptors: \(output)")
        withExtendedLifetime(listener) {}
    }
}
