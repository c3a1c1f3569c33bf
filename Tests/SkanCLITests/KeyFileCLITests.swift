import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// A key option that cannot be used says which option, which path and why, in one line.
    @Suite("Key files named on the command line")
    struct KeyFileCLITests {
        @Test("a missing, folder or garbage key file names the option, the path and the reason", arguments: [
            (["verify", "--trust-key", "nosuch.pem", "Samples/postbacks/apple-examples.jsonl"],
             "skan: --trust-key nosuch.pem: no such file"),
            (["serve", "--apple-key-p256", "Keys", "--port", "0"], "skan: --apple-key-p256 Keys: is a directory, not a key file"),
            (["ingest", "--db", "TEST-FOLDER/never-created.sqlite", "--trust-key", "Samples/campaigns/skan-4.0-subscription.json",
              "Samples/postbacks/apple-examples.jsonl"],
             "skan: --trust-key Samples/campaigns/skan-4.0-subscription.json: neither PEM nor Base64"),
            (["verify-impression", "--public-key", "Keys/test/missing-public-key.pem", "-"],
             "skan: --public-key Keys/test/missing-public-key.pem: no such file"),
            (["sign", "--key", "nowhere/key.pem", "--version", "4.0", "--ad-network-id", "a.skadnetwork",
              "--itunes-item-id", "1"], "skan: --key nowhere/key.pem: no such file"),
        ])
        func named(arguments: [String], message: String) async throws {
            let folder = try TemporaryFolder.current
            let result = try await SkanProcess.run(arguments.map { $0.replacingOccurrences(of: "TEST-FOLDER", with: folder.path) })
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }

        @Test("a key file that cannot be read says so", .enabled(if: getuid() != 0, "root reads any file"))
        func unreadable() async throws {
            let folder = try TemporaryFolder.current.url
            let key = folder.appendingPathComponent("key.pem").path
            try FileManager.default.copyItem(atPath: SkanProcess.packageRoot.appendingPathComponent("Keys/test/ad-network-public-key.pem").path,
                                             toPath: key)
            chmod(key, 0)
            let result = try await SkanProcess.run(["verify", "--trust-key", key, "-"], stdin: "")
            #expect(result.status == 2)
            #expect(result.stderr.contains("--trust-key \(key): cannot read the key file"), "\(result.stderr)")
        }

        @Test("a key file that exists but whose read fails says so, for root too (/proc/self/mem: reading offset 0 fails)",
              .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/mem"), "needs Linux's /proc"))
        func readFails() async throws {
            let result = try await SkanProcess.run(["verify", "--trust-key", "/proc/self/mem", "-"], stdin: "")
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix("skan: --trust-key /proc/self/mem: cannot read the key file: "), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }

        @Test("skan --version prints the version and the commit it was built from")
        func version() async throws {
            let result = try await SkanProcess.run(["--version"])
            #expect(result.status == 0)
            let pattern = #"^skan \d+\.\d+\.\d+ \(([0-9a-f]{4,40}|unknown)\)\n$"#
            #expect(result.stdout.range(of: pattern, options: .regularExpression) != nil, "\(result.stdout)")
            // Built in a git checkout (as the tests are), the commit is this checkout's HEAD: the build plugin
            // reruns git before every build, so a commit made since the last build is picked up by the next.
            let git = Process()
            git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            git.arguments = ["git", "-C", SkanProcess.packageRoot.path, "rev-parse", "--short", "HEAD"]
            let out = Pipe()
            git.standardOutput = out
            git.standardError = FileHandle.nullDevice
            try git.run()
            let head = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            git.waitUntilExit()
            if git.terminationStatus == 0 {
                #expect(result.stdout == "skan 0.9.0 (\(head))\n")
            } else {
                #expect(result.stdout == "skan 0.9.0 (unknown)\n")
            }
        }
    }
}
