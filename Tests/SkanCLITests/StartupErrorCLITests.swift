import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// A listener that cannot bind is one line naming the address, the port and the option, printed before anything
    /// is created and with no "listening" line before it (issue 37: "bind(descriptor:ptr:bytes:): Address already in
    /// use) (errno: 98)" after the database files were made, and "listening on" before a busy --dashboard-port).
    @Suite("Startup errors")
    struct StartupErrorCLITests {
        /// Runs `arguments` (with `--db` in a fresh folder) while another socket holds a port, passed to `arguments`.
        static func withBusyPort(_ arguments: (Int, String) throws -> [String]) async throws -> (SkanProcess.Result, Int, [String]) {
            let folder = try TemporaryFolder.current.makeFolder("db")
            let holder = try HeldPort()
            defer { holder.close() }
            let result = try await SkanProcess.run(try arguments(holder.port, folder.appendingPathComponent("x.sqlite").path))
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            return (result, holder.port, left)
        }

        /// The key the collector needs, and quiet logs: what is left on standard error is the error alone.
        static let appleKey = ["--apple-key-p256", "Keys/test/simulated-apple-p256-public-key.pem", "--log-level", "warning"]

        @Test("serve: a busy --port names the address, the port and the option, and creates no database",
              arguments: ["--port", "--admin-port", "--dashboard-port", "--signer-port"])
        func busyServePort(option: String) async throws {
            let (result, port, left) = try await Self.withBusyPort { port, db in
                var arguments = ["serve", "--db", db, "--port", "0"] + Self.appleKey
                switch option {
                case "--port": arguments[4] = String(port)
                case "--signer-port":
                    arguments += ["--signer-port", String(port), "--signer-key", try Self.signerKey()]
                default: arguments += [option, String(port)]
                }
                return arguments
            }
            #expect(result.status == 1)
            #expect(result.stderr == "skan: 127.0.0.1:\(port) (\(option)) is already in use by another process; "
                    + "choose another \(option) or stop that process\n", "\(result.stderr)")
            #expect(!result.stdout.contains("listening"), "\(result.stdout)")
            #expect(left.isEmpty, "created before binding: \(left)")
        }

        @Test("signer: a busy --port or --public-port is named, and the web-ad database is not created",
              arguments: ["--port", "--public-port"])
        func busySignerPort(option: String) async throws {
            let (result, port, left) = try await Self.withBusyPort { port, db in
                ["signer", "--key", try Self.signerKey(), "--db", db, "--port", option == "--port" ? String(port) : "0",
                 "--public-host", "127.0.0.1", "--public-port", option == "--public-port" ? String(port) : "0",
                 "--log-level", "warning"]
            }
            #expect(result.status == 1)
            #expect(result.stderr == "skan: 127.0.0.1:\(port) (\(option)) is already in use by another process; "
                    + "choose another \(option) or stop that process\n", "\(result.stderr)")
            #expect(!result.stdout.contains("listening"))
            #expect(left.isEmpty, "created before binding: \(left)")
        }

        @Test("no SwiftNIO words and balanced parentheses in a bind failure")
        func plainWords() async throws {
            let (result, _, _) = try await Self.withBusyPort { port, db in
                ["serve", "--db", db, "--port", String(port)] + Self.appleKey
            }
            for word in ["bind(", "errno", "descriptor", "NIO", "IOError"] { #expect(!result.stderr.contains(word)) }
            #expect(result.stderr.filter { $0 == "(" }.count == result.stderr.filter { $0 == ")" }.count)
            #expect(result.stderr.split(separator: "\n").count == 1)
        }

        /// The test network's key, copied to mode 600 (the signer refuses a key others may read).
        static func signerKey() throws -> String {
            let copy = try TemporaryFolder.current.path("signer.pem")
            if !FileManager.default.fileExists(atPath: copy) {
                try FileManager.default.copyItem(atPath: SkanProcess.packageRoot.appendingPathComponent("Keys/test/ad-network-private-key.pem").path,
                                                 toPath: copy)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: copy)
            }
            return copy
        }
    }
}

/// A loopback port held by a listening socket of the test's own, so that the server's bind finds it busy.
final class HeldPort: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socket, 8) == 0 else {
            Glibc.close(socket)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        descriptor = socket
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(descriptor) }
}
