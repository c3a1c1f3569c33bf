import Foundation
import Testing

/// Scratch space for one test: a new folder `skan-<purpose>-<UUID>` under the temporary directory (`TMPDIR`),
/// removed with everything in it when the scope that made it ends.
///
/// Why a folder rather than a file name: what a test leaves is not only the path it named. A SQLite store keeps
/// `-wal` and `-shm` beside its file and a rollup database (`<db>-rollups`, with its own `-wal` and `-shm`) beside
/// that; reports, keys and processes write side files of their own. A test that removed the names it knew left
/// thousands of files behind; removing the folder removes whatever was made in it.
///
/// Get one from the ``Testing/Trait/temporaryFolder`` trait and ``current``, or from
/// ``withTemporaryFolder(_:isolation:_:)`` where a test needs more than one or support code needs its own.
public struct TemporaryFolder: Sendable {
    /// The folder.
    public let url: URL

    /// The folder's path.
    public var path: String { url.path }

    /// The path of `name` inside the folder (nothing is made).
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The URL of `name` inside the folder (nothing is made).
    public func appendingPathComponent(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Makes the folder `name` inside this one (and any folders above it), for a helper that needs a folder of its
    /// own each time a test calls it. It goes with this folder.
    public func makeFolder(_ name: String) throws -> URL {
        let folder = url.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Makes a new empty folder `skan-<purpose>-<UUID>` under the temporary directory. Prefer the trait or
    /// ``withTemporaryFolder(_:isolation:_:)``, which remove it; whoever calls this must call ``remove()``.
    public static func make(_ purpose: String) throws -> TemporaryFolder {
        let name = "skan-\(Self.sanitized(purpose))-\(UUID().uuidString)"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        return TemporaryFolder(url: url)
    }

    /// Removes the folder and everything in it, however deep; symbolic links inside are removed, never followed.
    /// A folder already gone is not an error.
    public func remove() throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        try FileManager.default.removeItem(at: url)
    }

    /// The folder of the running test, made by the ``Testing/Trait/temporaryFolder`` trait.
    public static var current: TemporaryFolder {
        get throws {
            guard let folder = scoped else { throw TemporaryFolderError.noScope }
            return folder
        }
    }

    @TaskLocal static var scoped: TemporaryFolder?

    /// Letters, digits and `-` only, so a test's display name makes a tidy folder name.
    static func sanitized(_ purpose: String) -> String {
        let name = purpose.prefix { $0 != "(" }
        let kept = name.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }
        let joined = String(kept).split(separator: "-").joined(separator: "-")
        return joined.isEmpty ? "test" : String(joined.prefix(40))
    }
}

/// Runs `body` with a new ``TemporaryFolder`` and removes the folder and everything in it afterwards, also when
/// `body` throws. Whatever `body` started in the folder (a server, a process) must be stopped before it returns.
public func withTemporaryFolder<Result>(
    _ purpose: String,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (TemporaryFolder) async throws -> Result
) async throws -> Result {
    let folder = try TemporaryFolder.make(purpose)
    let result: Result
    do {
        result = try await body(folder)
    } catch {
        try? folder.remove()
        throw error
    }
    try folder.remove()
    return result
}

/// ``withTemporaryFolder(_:isolation:_:)`` for synchronous work.
public func withTemporaryFolder<Result>(_ purpose: String, _ body: (TemporaryFolder) throws -> Result) throws -> Result {
    let folder = try TemporaryFolder.make(purpose)
    let result: Result
    do {
        result = try body(folder)
    } catch {
        try? folder.remove()
        throw error
    }
    try folder.remove()
    return result
}

/// Asked for ``TemporaryFolder/current`` outside a test with the ``Testing/Trait/temporaryFolder`` trait.
public enum TemporaryFolderError: Error, CustomStringConvertible {
    case noScope

    public var description: String {
        "TemporaryFolder.current was read outside a test with the .temporaryFolder trait (add it to the @Test or @Suite)"
    }
}

/// Gives each test (each case of a parameterized test) its own ``TemporaryFolder``, read with
/// ``TemporaryFolder/current`` and removed with everything in it when the test ends, passed or failed.
public struct TemporaryFolderTrait: TestTrait, SuiteTrait, TestScoping {
    /// Use ``Testing/Trait/temporaryFolder``.
    public init() {}

    /// On a suite, every test in it gets a folder of its own.
    public var isRecursive: Bool { true }

    /// Runs each test case inside ``withTemporaryFolder(_:isolation:_:)``, its folder bound to
    /// ``TemporaryFolder/current``; a suite's own scope gets no folder.
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil, !test.isSuite else { return try await function() }
        try await withTemporaryFolder(test.name) { folder in
            try await TemporaryFolder.$scoped.withValue(folder) { try await function() }
        }
    }
}

extension Trait where Self == TemporaryFolderTrait {
    /// A ``TemporaryFolder`` for each test, named after it: `skan-<test function>-<UUID>`.
    public static var temporaryFolder: Self { TemporaryFolderTrait() }
}
