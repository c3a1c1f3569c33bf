import Foundation

/// Runs the built `skan` binary, as a user would, and captures what it prints and its exit status.
struct SkanProcess {
    struct Result {
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

    /// A new, empty folder under the temporary directory; the caller removes it.
    static func makeTemporaryFolder(_ prefix: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func run(_ arguments: [String], stdin: String? = nil) throws -> Result {
        try run(arguments) { input in
            if let stdin { input.write(Data(stdin.utf8)) }
        }
    }

    /// Runs `skan`, calls `feed` with its standard input while it runs, then closes that input and collects the
    /// result. A test that needs to act in the middle of a run (write to a FIFO, remove a file) does so in `feed`.
    static func run(_ arguments: [String], feed: (FileHandle) throws -> Void) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
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
