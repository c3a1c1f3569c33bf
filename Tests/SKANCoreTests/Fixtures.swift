import Foundation

/// Paths to the files tests read: the package's `Keys/`, `Samples/` and the test vectors (`Vectors/` beside this
/// file, copied from the shared set with their provenance).
enum Fixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let keys = packageRoot.appendingPathComponent("Keys")
    static let samples = packageRoot.appendingPathComponent("Samples")
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")
    /// The team's shared set the package's copies come from, when it is beside the package.
    static let sharedVectors = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/vectors")

    static func data(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    static func json(_ url: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }

    /// A test key file's text (`Keys/test/<name>`).
    static func testKey(_ name: String) throws -> String {
        try String(contentsOf: keys.appendingPathComponent("test").appendingPathComponent(name), encoding: .utf8)
    }

    /// Runs the `openssl` command line, the reference the key formats and signatures are checked against,
    /// and returns its standard output and exit status.
    @discardableResult
    static func openssl(_ arguments: [String], input: String = "") throws -> (output: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: output, as: UTF8.self), process.terminationStatus)
    }

    /// Files of one vector folder, sorted.
    static func vectorFiles(_ folder: String, in root: URL = vectors) -> [URL] {
        let directory = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { directory.appendingPathComponent($0) }
    }
}
