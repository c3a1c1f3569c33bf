import Dispatch
import Foundation
import SKANTestSupport
import Testing

/// Every suite that runs the `skan` binary, one test at a time.
///
/// These tests block their thread while a child process runs (up to seconds); run side by side they held both of
/// a two-core machine's concurrency threads, and the HTTP tests running meanwhile starved and timed out. Each test
/// gets a temporary folder of its own (`TemporaryFolder.current`), removed with whatever `skan` left in it.
@Suite("skan as a process", .serialized, .temporaryFolder)
enum CommandLineSuites {}

/// Runs the built `skan` binary, as a user would, and captures what it prints and its exit status.
struct SkanProcess {
    struct Result: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `skan` binary beside the test bundle (both are products of the same build).
    static let binary: URL = {
        let testBinary = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var directory = testBinary.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("skan")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/skan")
    }()

    /// What a pipe has to read now (waiting for the first byte), empty at its end. Why not `FileHandle.availableData`:
    /// it stops the whole test process with a fatal error when a signal interrupts the read (EINTR), as happened
    /// in a full run beside the PostgreSQL suites' child processes.
    static func readAvailable(_ descriptor: Int32) -> Data {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno != EINTR { return Data() }
        }
    }

    /// Runs `skan` on a Dispatch thread: a test that blocked one of Swift's few concurrency threads for seconds
    /// starved the HTTP tests running beside it.
    static func run(_ arguments: [String], stdin: String? = nil, in directory: URL? = nil) async throws -> Result {
        let environment = scratch()
        return try await offThread {
            try runBlocking(arguments, in: directory, environment: environment) { input in
                if let stdin { input.write(Data(stdin.utf8)) }
            }
        }
    }

    /// ``runBlocking(_:feed:)`` on a Dispatch thread.
    static func run(_ arguments: [String], feed: @escaping @Sendable (FileHandle) throws -> Void) async throws -> Result {
        let environment = scratch()
        return try await offThread { try runBlocking(arguments, environment: environment, feed: feed) }
    }

    /// `TMPDIR` for the child: the test's own temporary folder, so that what `skan` leaves there on purpose (`demo`
    /// keeps its folder for the user to look at) goes when the test ends.
    static func scratch() -> [String: String] {
        guard let folder = try? TemporaryFolder.current else { return [:] }
        return ["TMPDIR": folder.path]
    }

    static func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Swift.Result { try work() }) }
        }
    }

    /// Runs `skan`, calls `feed` with its standard input while it runs, then closes that input and collects the
    /// result. A test that needs to act in the middle of a run (write to a FIFO, remove a file) does so in `feed`.
    /// `environment` is added to the test's own; `directory` is where it runs (the package root when `nil`).
    static func runBlocking(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
                            feed: (FileHandle) throws -> Void) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? packageRoot
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        try feed(input.fileHandleForWriting)
        try input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a large output cannot block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}

extension SkanProcess {
    /// Runs `skan` with its output discarded and returns its exit status and peak resident memory in bytes,
    /// as the kernel counted it for that one process (`wait4`'s resource usage). Paths must be absolute: the
    /// child runs in the test's working directory.
    static func runMeasuringMemory(_ arguments: [String]) async throws -> (status: Int32, peakBytes: Int) {
        try await offThread { try runMeasuringMemoryBlocking(arguments) }
    }

    private static func runMeasuringMemoryBlocking(_ arguments: [String]) throws -> (status: Int32, peakBytes: Int) {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let argv = ([binary.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, binary.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        // Linux reports ru_maxrss in kibibytes.
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exitStatus, usage.ru_maxrss * 1024)
    }
}
