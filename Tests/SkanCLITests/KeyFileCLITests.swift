import Foundation
import Testing

extension CommandLineSuites {
    /// A key option that cannot be used says which option, which path and why, in one line.
    @Suite("Key files named on the command line")
    struct KeyFileCLITests {
        @Test("a missing, folder or garbage key file names the option, the path and the reason", arguments: [
            (["verify", "--trust-key", "nosuch.pem", "Samples/postbacks/apple-examples.jsonl"],
             "skan: --trust-key nosuch.pem: no such file"),
            (["serve", "--apple-key-p256", "Keys", "--port", "0"], "skan: --apple-key-p256 Keys: is a directory, not a key file"),
            (["ingest", "--db", "/tmp/skan-never-created.sqlite", "--trust-key", "Samples/campaigns/skan-4.0-subscription.json",
              "Samples/postbacks/apple-examples.jsonl"],
             "skan: --trust-key Samples/campaigns/skan-4.0-subscription.json: neither PEM nor Base64"),
            (["verify-impression", "--public-key", "Keys/test/missing-public-key.pem", "-"],
             "skan: --public-key Keys/test/missing-public-key.pem: no such file"),
            (["sign", "--key", "nowhere/key.pem", "--version", "4.0", "--ad-network-id", "a.skadnetwork",
              "--itunes-item-id", "1"], "skan: --key nowhere/key.pem: no such file"),
        ])
        func named(arguments: [String], message: String) async throws {
            let result = try await SkanProcess.run(arguments)
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(!FileManager.default.fileExists(atPath: "/tmp/skan-never-created.sqlite"))
        }

        @Test("a key file that cannot be read says so", .enabled(if: getuid() != 0, "root reads any file"))
        func unreadable() async throws {
            let folder = try SkanProcess.makeTemporaryFolder("skan-key-mode")
            defer { try? FileManager.default.removeItem(at: folder) }
            let key = folder.appendingPathComponent("key.pem").path
            try FileManager.default.copyItem(atPath: SkanProcess.packageRoot.appendingPathComponent("Keys/test/ad-network-public-key.pem").path,
                                             toPath: key)
            chmod(key, 0)
            let result = try await SkanProcess.run(["verify", "--trust-key", key, "-"], stdin: "")
            #expect(result.status == 2)
            #expect(result.stderr.contains("--trust-key \(key): cannot read the key file"), "\(result.stderr)")
        }

        @Test("skan --version prints the version")
        func version() async throws {
            let result = try await SkanProcess.run(["--version"])
            #expect(result.status == 0)
            #expect(result.stdout.range(of: #"^skan \d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, "\(result.stdout)")
        }
    }
}
