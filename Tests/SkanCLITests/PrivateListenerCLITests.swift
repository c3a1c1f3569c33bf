import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// Issue 31: a private listener on any address but loopback, without a token, refuses to start, naming the option
    /// that would let it, before anything listens or any file is made. Every command with a private listener.
    @Suite("Private listeners refuse to start without a token")
    struct PrivateListenerCLITests {
        @Test("a private listener off loopback without its token file: a failed exit, the option named, nothing created",
              arguments: [("serve", "--admin-host", "--admin-token-file"),
                          ("serve", "--dashboard-host", "--dashboard-token-file"),
                          ("serve", "--signer-host", "--signer-token-file"),
                          ("signer", "--host", "--token-file"),
                          ("dashboard", "--host", "--token-file")])
        func refused(command: String, host: String, tokenFile: String) async throws {
            let folder = try TemporaryFolder.current.makeFolder("db")
            let db = folder.appendingPathComponent("x.sqlite").path
            var arguments = [command, "--port", "0", "--log-level", "warning"]
            switch command {
            case "serve":
                arguments += ["--db", db] + StartupErrorCLITests.appleKey
                if host == "--dashboard-host" { arguments += ["--dashboard-port", "0"] }
                if host == "--signer-host" { arguments += ["--signer-port", "0", "--signer-key", try StartupErrorCLITests.signerKey()] }
            case "signer":
                arguments += ["--key", try StartupErrorCLITests.signerKey(), "--db", db]
            default:
                arguments += ["--db", db]
            }
            arguments += [host, "0.0.0.0"]
            let result = try await SkanProcess.run(arguments)
            #expect(result.status != 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains(tokenFile) && result.stderr.contains("\(host) 0.0.0.0"), "\(result.stderr)")
            #expect(!result.stdout.contains("listening") && !result.stdout.contains("http://"), "\(result.stdout)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "a file was made")
        }
    }
}
