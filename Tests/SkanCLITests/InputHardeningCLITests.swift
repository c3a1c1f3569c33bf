import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// Inputs that once went wrong quietly: a folder read as an empty file, batches sized by count alone.
    @Suite("skan reads its inputs strictly and in bounded memory", .serialized)
    struct InputHardeningCLITests {
        @Test("a folder as input is a usage error naming it, not an empty file", arguments: [
            ["verify"], ["verify-impression", "--public-key", "Keys/test/ad-network-public-key.pem"],
        ])
        func folderIsRefused(command: [String]) async throws {
            let result = try await SkanProcess.run(command + ["Samples"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("cannot read Samples: it is a directory"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }

        @Test("ingest refuses a folder before it creates a database")
        func ingestFolder() async throws {
            let folder = try TemporaryFolder.current.url
            let db = folder.appendingPathComponent("skan.sqlite").path
            let result = try await SkanProcess.run(["ingest", "--db", db, folder.path])
            #expect(result.status == 2)
            #expect(result.stderr.contains("it is a directory"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: db))
        }

        @Test("verify's memory follows the bytes of a batch, not only its record count: 240 records of 1 MB")
        func largeRecordsStayBounded() async throws {
            let folder = try TemporaryFolder.current.url
            let path = folder.appendingPathComponent("large.jsonl").path
            // Each record is just under the 1 MiB record limit, so each is kept whole and judged (malformed).
            let record = Data(#"{"version":"4.0","transaction-id":""#.utf8) + Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
                + Data("\"}\n".utf8)
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            for _ in 0..<240 { handle.write(record) }
            try handle.close()
            let (status, peak) = try await SkanProcess.runMeasuringMemory(["verify", "--format", "json", path])
            #expect(status == 1, "every record is malformed")
            // All 240 records in one batch took 625 MB (their JSON lines echo each 1 MB id); batches bounded at 8 MiB
            // keep 146-160 MB (debug build). 300 MB is the bound the issue sets for 3 GB of such records.
            #expect(peak < 300_000_000, "peak resident memory \(peak) bytes")
        }
    }
}
