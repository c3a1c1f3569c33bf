import Foundation
import Synchronization
import SKANTestSupport
import Testing

@Suite("Temporary folder")
struct TemporaryFolderTests {
    struct Planned: Error {}

    /// Fills `folder` the way the tests do: a SQLite file with its sidecars, a nested folder, a link to a folder
    /// outside that must survive the removal.
    static func fill(_ folder: TemporaryFolder, linkingTo outside: URL) throws {
        for name in ["store.sqlite", "store.sqlite-wal", "store.sqlite-rollups", "store.sqlite-rollups-shm"] {
            try Data("x".utf8).write(to: folder.appendingPathComponent(name))
        }
        let nested = folder.appendingPathComponent("keys/deeper")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try Data("key".utf8).write(to: nested.appendingPathComponent("network.pem"))
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("outside"), withDestinationURL: outside)
    }

    static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    @Test("makes a new folder skan-<purpose>-<UUID> and removes it with everything in it, nested files included")
    func removesEverything() async throws {
        let outside = try TemporaryFolder.make("outside")
        defer { try? outside.remove() }
        try Data("kept".utf8).write(to: outside.appendingPathComponent("kept.txt"))

        var seen: URL?
        let answer = try await withTemporaryFolder("store") { folder in
            await Task.yield()
            seen = folder.url
            #expect(folder.url.deletingLastPathComponent().standardizedFileURL
                == FileManager.default.temporaryDirectory.standardizedFileURL)
            #expect(folder.url.lastPathComponent.hasPrefix("skan-store-"))
            #expect(UUID(uuidString: String(folder.url.lastPathComponent.dropFirst("skan-store-".count))) != nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
            try Self.fill(folder, linkingTo: outside.url)
            return 42
        }
        #expect(answer == 42)
        let folder = try #require(seen)
        #expect(!Self.exists(folder))
        // The link was removed, not followed.
        #expect(Self.exists(outside.appendingPathComponent("kept.txt")))
    }

    @Test("removes the folder and everything in it when the body throws, and passes the error on")
    func removesWhenThrowing() async throws {
        var seen: URL?
        await #expect(throws: Planned.self) {
            try await withTemporaryFolder("throws") { folder in
                await Task.yield()
                seen = folder.url
                let nested = folder.appendingPathComponent("a/b/c")
                try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
                try Data("x".utf8).write(to: nested.appendingPathComponent("file.sqlite-rollups-wal"))
                throw Planned()
            }
        }
        let folder = try #require(seen)
        #expect(!Self.exists(folder))
    }

    @Test("the synchronous form removes the folder too, also when the body throws")
    func synchronous() throws {
        var seen: [URL] = []
        try withTemporaryFolder("sync") { folder in
            seen.append(folder.url)
            try Data("x".utf8).write(to: folder.appendingPathComponent("keys.pem"))
        }
        #expect(throws: Planned.self) {
            try withTemporaryFolder("sync") { folder in
                seen.append(folder.url)
                try FileManager.default.createDirectory(at: folder.appendingPathComponent("n"), withIntermediateDirectories: true)
                throw Planned()
            }
        }
        #expect(seen.count == 2)
        #expect(seen[0] != seen[1])
        #expect(seen.allSatisfy { !Self.exists($0) })
    }

    @Test("the .temporaryFolder trait gives the test an empty folder named after it", .temporaryFolder)
    func givesAFolder() throws {
        let folder = try TemporaryFolder.current
        #expect(folder.url.lastPathComponent.hasPrefix("skan-givesAFolder-"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("the trait removes the test's folder with everything in it when the test ends, passed or failed")
    func traitRemoves() async throws {
        let test = try #require(Test.current)
        let seen = Mutex<[URL]>([])
        let work: @Sendable (Bool) async throws -> Void = { fail in
            let folder = try TemporaryFolder.current
            seen.withLock { $0.append(folder.url) }
            let nested = folder.appendingPathComponent("relay/config")
            try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: nested.appendingPathComponent("relay.json"))
            try Data("x".utf8).write(to: folder.appendingPathComponent("relay.sqlite-rollups-shm"))
            if fail { throw Planned() }
        }
        try await TemporaryFolderTrait().provideScope(for: test, testCase: Test.Case.current) { try await work(false) }
        await #expect(throws: Planned.self) {
            try await TemporaryFolderTrait().provideScope(for: test, testCase: Test.Case.current) { try await work(true) }
        }
        let folders = seen.withLock { $0 }
        #expect(folders.count == 2)
        #expect(folders.allSatisfy { $0.lastPathComponent.hasPrefix("skan-traitRemoves-") && !Self.exists($0) })
    }

    @Test("outside a test with the trait, TemporaryFolder.current throws and says how to get one")
    func currentWithoutTrait() {
        #expect(throws: TemporaryFolderError.self) { try TemporaryFolder.current }
    }
}
