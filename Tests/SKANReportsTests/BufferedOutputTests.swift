import Foundation
import SKANReports
import SKANStoreSQLite
import SKANTestSupport
import Testing

/// `--out` must never destroy what a command reads, and a run that fails must leave the old output as it was.
@Suite("Output files", .temporaryFolder)
struct BufferedOutputTests {
    /// The test's temporary folder with a pretend database and its write-ahead log.
    struct Folder {
        let url: URL
        var database: String { url.appendingPathComponent("skan.sqlite").path }
        let content = Data("SQLite format 3\0 and twenty thousand postbacks".utf8)

        init() throws {
            url = try TemporaryFolder.current.url
            try content.write(to: URL(fileURLWithPath: database))
            try content.write(to: URL(fileURLWithPath: database + "-wal"))
        }

        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        /// Everything in the folder, so a test can see that no temporary file was left behind.
        func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() }
    }

    enum Alias: String, CaseIterable {
        case samePath, relativeSpelling, hardLink, symlink, writeAheadLog, sharedMemoryNotYetCreated
    }

    @Test("an output that is the database, by any name, is refused and the database keeps every byte",
          arguments: Alias.allCases)
    func refusesTheDatabase(alias: Alias) throws {
        let folder = try Folder()
        let out: String
        switch alias {
        case .samePath: out = folder.database
        case .relativeSpelling: out = folder.url.path + "/./../" + folder.url.lastPathComponent + "/skan.sqlite"
        case .hardLink:
            out = folder.path("report.csv")
            try FileManager.default.linkItem(atPath: folder.database, toPath: out)
        case .symlink:
            out = folder.path("report.csv")
            try FileManager.default.createSymbolicLink(atPath: out, withDestinationPath: folder.database)
        case .writeAheadLog: out = folder.database + "-wal"
        case .sharedMemoryNotYetCreated: out = folder.database + "-shm"
        }
        let before = try folder.names()
        #expect(throws: ReportError.self) {
            _ = try BufferedOutput.to(out, protecting: SQLiteEngine().protectedFiles(folder.database))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.database)) == folder.content)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.database + "-wal")) == folder.content)
        #expect(try folder.names() == before)
    }

    @Test("another file in the same folder is written, and the refusal names the database file")
    func otherFilesAreWritten() throws {
        let folder = try Folder()
        let stream = try BufferedOutput(path: folder.path("report.csv"), protecting: SQLiteEngine().protectedFiles(folder.database))
        stream.write("a,b\n")
        try stream.commit()
        #expect(try String(contentsOfFile: folder.path("report.csv"), encoding: .utf8) == "a,b\n")
        do {
            _ = try BufferedOutput(path: folder.database, protecting: SQLiteEngine().protectedFiles(folder.database))
            Issue.record("the database was accepted as an output")
        } catch {
            #expect(error.code == .output)
            #expect(error.reason.contains(folder.database) && error.reason.contains("--out"))
        }
    }

    @Test("until commit the old file is what a reader sees; an output never committed leaves it and no debris")
    func replacesOnlyOnCommit() throws {
        let folder = try Folder()
        let out = folder.path("report.csv")
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: out))
        chmod(out, 0o640)
        let before = try folder.names()

        let abandoned = try BufferedOutput(path: out)
        abandoned.write(String(repeating: "x", count: 3 << 20))
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "old\n")
        abandoned.close()
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "old\n")
        #expect(try folder.names() == before)

        let stream = try BufferedOutput(path: out)
        stream.write("new\n")
        try stream.commit()
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "new\n")
        #expect(try folder.names() == before)
        let mode = try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int
        #expect(mode == 0o640, "a replaced file keeps its permissions")
    }

    @Test("a symlink to a report is followed: the file it points to gets the new content, the link stays")
    func followsSymlinks() throws {
        let folder = try Folder()
        let target = folder.path("target.csv"), link = folder.path("link.csv")
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let stream = try BufferedOutput(path: link)
        stream.write("new\n")
        try stream.commit()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "new\n")
    }

    @Test("devices are written in place")
    func devices() throws {
        let stream = try BufferedOutput(path: "/dev/null")
        stream.write("discarded\n")
        try stream.commit()
    }

    @Test("a folder that cannot be written is an output error naming the path")
    func unwritableFolder() throws {
        do {
            _ = try BufferedOutput(path: "/nonexistent-skan-folder/report.csv")
            Issue.record("an output in a missing folder was accepted")
        } catch {
            #expect(error.code == .output)
            #expect(error.reason.contains("/nonexistent-skan-folder/report.csv"))
        }
    }
}
