import Foundation
import Synchronization

/// A throwaway PostgreSQL cluster for the tests, made by `Scripts/postgres-test-server.sh` (which installs
/// Debian's postgresql when it is missing) once per test process and removed when the process ends.
///
/// Without a server the PostgreSQL tests are left out and ``skipReason`` says why; with
/// `SKAN_REQUIRE_POSTGRES=1` (which `.ci/run` sets) a missing server fails the run instead.
public final class PostgresTestServer: Sendable {
    /// `postgres://postgres@127.0.0.1:PORT/postgres`: trust authentication on loopback.
    public let url: String
    /// The port it listens on.
    public let port: Int
    /// The folder of the cluster.
    public let directory: String
    private let bin: String

    /// The process's shared server, started on first use; `nil` when none could be started.
    public static let shared: PostgresTestServer? = {
        do {
            let server = try PostgresTestServer.start()
            atexit { PostgresTestServer.stopShared() }
            return server
        } catch {
            startFailure.withLock { $0 = "\(error)" }
            FileHandle.standardError.write(Data("PostgreSQL tests skipped: \(error)\n".utf8))
            return nil
        }
    }()

    /// Whether the PostgreSQL tests run in this process.
    public static var isAvailable: Bool { shared != nil }

    /// Why the PostgreSQL tests were skipped, when they were.
    public static var skipReason: String? {
        _ = shared
        return startFailure.withLock { $0 }
    }

    /// Whether a missing server must fail the run (`SKAN_REQUIRE_POSTGRES=1`).
    public static var isRequired: Bool { ProcessInfo.processInfo.environment["SKAN_REQUIRE_POSTGRES"] == "1" }

    private static let startFailure = Mutex<String?>(nil)

    private static func stopShared() {
        guard let server = shared else { return }
        _ = try? script("stop", server.directory)
    }

    private init(url: String, port: Int, directory: String, bin: String) {
        self.url = url
        self.port = port
        self.directory = directory
        self.bin = bin
    }

    /// Starts a new cluster of its own (most tests share ``shared``; one that stops its server needs its own).
    /// Removed when this process ends, or by ``stop()``.
    public static func start() throws -> PostgresTestServer {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("skan-pg-\(UUID().uuidString.prefix(8).lowercased())").path
        let output = try script("start", directory, String(ProcessInfo.processInfo.processIdentifier))
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let url = values["url"], let port = values["port"].flatMap(Int.init), let bin = values["bin"] else {
            throw PostgresTestServerError(message: "the script printed no url: \(output)")
        }
        return PostgresTestServer(url: url, port: port, directory: directory, bin: bin)
    }

    /// A new empty database on this server, as a URL.
    public func makeDatabase() throws -> String {
        let name = "skan_test_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))"
        _ = try Self.run(bin + "/psql", ["-X", "-q", "-h", "127.0.0.1", "-p", String(port), "-U", "postgres",
                                         "-d", "postgres", "-c", "CREATE DATABASE \(name)"])
        return "postgres://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// Runs `sql` with `psql` in the database at `url` and returns its unaligned output.
    public func psql(_ url: String, _ sql: String) throws -> String {
        try Self.run(bin + "/psql", ["-X", "-q", "-A", "-t", url, "-c", sql])
    }

    /// Stops the server, keeping its data.
    public func pause() throws { try Self.script("pause", directory) }

    /// Starts the paused server again on the same port.
    public func resume() throws { try Self.script("resume", directory) }

    /// Stops the server and removes its folder.
    public func stop() throws { try Self.script("stop", directory) }

    /// The script beside the package's sources.
    static let scriptPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/postgres-test-server.sh").path

    @discardableResult
    private static func script(_ arguments: String...) throws -> String {
        try run("/bin/bash", [scriptPath] + arguments)
    }

    /// Runs a program to its end and returns its standard output (``ChildProcess``: without the test process's
    /// sockets, which the script's watchdog would otherwise hold open as long as the test process lives).
    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let (exitCode, output, errors): (Int32, String, String)
        do {
            (exitCode, output, errors) = try ChildProcess.run(executable, arguments)
        } catch {
            throw PostgresTestServerError(message: error.description)
        }
        guard exitCode == 0 else {
            throw PostgresTestServerError(message: "\(URL(fileURLWithPath: executable).lastPathComponent) "
                + "\(arguments.first ?? "") exited \(exitCode): " + errors.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return output
    }
}

/// The test server could not be started or used.
public struct PostgresTestServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
