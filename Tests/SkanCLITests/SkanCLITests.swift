import Foundation
import SKANCore
import SKANTestSupport
import Testing

extension CommandLineSuites {
    @Suite("skan command line", .serialized)
    struct SkanCLITests {
        @Test("verify prints one JSON result per postback in input order and exits 0 when all are valid")
        func verifyAllValid() async throws {
            let result = try await SkanProcess.run(["verify", "--format", "json", "Samples/postbacks/apple-examples.jsonl"])
            #expect(result.status == 0, "\(result.stderr)")
            let objects = try result.lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
            #expect(objects.count == 7)
            #expect(objects.allSatisfy { $0["status"] as? String == "valid" })
            #expect(objects.map { $0["input"] as! String } == (1...7).map { "Samples/postbacks/apple-examples.jsonl:\($0)" })
            #expect(objects[2]["layout"] as? String == "2.2-as-2.0")
            for key in ["status", "version", "transaction-id", "reason", "layout"] {
                #expect(objects.allSatisfy { $0.keys.contains(key) }, "\(key)")
            }
        }

        @Test("one bad postback among good ones gives exit 1 and the right status on its line")
        func verifyMixed() async throws {
            let good = try String(contentsOf: SkanProcess.packageRoot.appendingPathComponent("Samples/postbacks/skan-3.0-winning-apple-doc.json"), encoding: .utf8)
            let tampered = good.replacingOccurrences(of: "525463029", with: "525463028")
            let input = [good, tampered, #"{"version":"9.9","transaction-id":"t"}"#, "{not json"].joined(separator: "\n")
            let result = try await SkanProcess.run(["verify", "--format", "json", "-"], stdin: input)
            #expect(result.status == 1)
            let statuses = try result.lines.map { (try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any])["status"] as! String }
            #expect(statuses == ["valid", "invalid-signature", "unsupported-version", "malformed"])
        }

        @Test("each JSON line has its members in a fixed order and escapes what varies: the file name, reasons, ids")
        func verifyJSONLines() async throws {
            let folder = try TemporaryFolder.current.url
            let file = folder.appendingPathComponent(#"odd "name"\here.jsonl"#)
            let good = try String(contentsOf: SkanProcess.packageRoot.appendingPathComponent("Samples/postbacks/skan-4.0-web-coarse-apple-doc.json"), encoding: .utf8)
            let records = [good.replacingOccurrences(of: "\n", with: ""), #"{"version":"9.9","transaction-id":"t\"x\u0001"}"#]
            try Data(records.joined(separator: "\n").utf8).write(to: file)
            let result = try await SkanProcess.run(["verify", "--format", "json", file.path])
            #expect(result.status == 1)
            let keys = ["input", "status", "framework", "version", "transaction-id", "ad-network-id", "reason", "field", "layout", "key"]
            let lines = result.lines
            try #require(lines.count == 2)
            // Key order as written: JSONSerialization forgets it, so read it off the text.
            func order(_ line: String) -> [String] {
                let object = try! JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                return object.keys.sorted { line.range(of: "\"\($0)\":")!.lowerBound < line.range(of: "\"\($1)\":")!.lowerBound }
            }
            #expect(order(lines[0]) == keys + ["signed-fields", "claimed-fields"])
            #expect(order(lines[1]) == keys)
            let valid = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
            #expect(valid["input"] as? String == "\(file.path):1")
            #expect(valid["status"] as? String == "valid")
            #expect(valid["version"] as? String == "4.0")
            #expect(valid["reason"] is NSNull)
            #expect(valid["layout"] as? String == "4.0")
            #expect(valid["key"] as? String == "apple-p256")
            let signed = try #require(valid["signed-fields"] as? [String])
            #expect(signed.first == "version" && signed.contains("source-domain") && !signed.contains("coarse-conversion-value"))
            #expect(valid["claimed-fields"] as? [String] == ["coarse-conversion-value"])
            let unsupported = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as! [String: Any]
            #expect(unsupported["input"] as? String == "\(file.path):2")
            #expect(unsupported["status"] as? String == "unsupported-version")
            #expect(unsupported["transaction-id"] as? String == "t\"x\u{1}")
            #expect(unsupported["ad-network-id"] is NSNull)
            #expect(unsupported["field"] as? String == "version")
            #expect(unsupported["layout"] is NSNull && unsupported["key"] is NSNull)
        }

        @Test("a later file that vanishes after the up-front check: the postbacks already read are still written, then the error")
        func verifyLaterFileVanishes() async throws {
            let folder = try TemporaryFolder.current.url
            // A FIFO as the first input lets the test decide when skan reaches the second file.
            let fifo = folder.appendingPathComponent("first.jsonl").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let second = folder.appendingPathComponent("second.jsonl")
            try Data("{}\n".utf8).write(to: second)
            // One full batch (4,096 records): skan verifies it while reading on towards the second file.
            let records = String(repeating: #"{"version":"9.9","transaction-id":"t"}"# + "\n", count: 4096)
            let result = try await SkanProcess.run(["verify", "--format", "json", fifo, second.path]) { _ in
                // Opening blocks until skan opens the FIFO, which is after it checked that both files are readable.
                let writer = try #require(FileHandle(forWritingAtPath: fifo))
                writer.write(Data(records.utf8))
                try FileManager.default.removeItem(at: second)
                try writer.close()
            }
            #expect(result.status == 2)
            #expect(result.stderr.contains("cannot read \(second.path)"), "\(result.stderr)")
            #expect(result.lines.count == 4096)
            #expect(result.lines.allSatisfy { $0.contains(#""status":"unsupported-version""#) })
        }

        @Test("CSV output has a header and quotes what needs quoting")
        func verifyCSV() async throws {
            let result = try await SkanProcess.run(["verify", "--format", "csv", "-"], stdin: #"{"version":"3.0","campaign-id":"4,2"}"# + "\n" + #"{"version":"9.9"}"#)
            #expect(result.status == 1)
            #expect(result.stdout.hasPrefix("input,status,framework,version,transaction-id,ad-network-id,layout,key,field,reason\r\n"))
            #expect(result.stdout.contains("stdin:1,malformed,skadnetwork,3.0,"))
            #expect(result.stdout.hasSuffix("\r\n"))
            // The reason holds quotes and commas: RFC 4180 quoting doubles the quotes and wraps the field.
            #expect(result.stdout.contains(#"stdin:2,unsupported-version,skadnetwork,9.9,,,,,version,"version ""9.9"" is not one of 1.0, 2.0"#))
        }

        @Test("usage errors exit 2 with one line", arguments: [
            ["verify", "--format", "xml"],
            ["verify", "no-such-file.jsonl"],
            ["verify", "--apple-key-p256", "Keys/test/simulated-apple-p192-public-key.pem", "Samples/postbacks/apple-examples.jsonl"],
            ["sign", "--key", "Keys/test/ad-network-private-key.pem"],
            ["no-such-command"],
            ["verify", "--bogus"],
        ])
        func usageErrors(arguments: [String]) async throws {
            let result = try await SkanProcess.run(arguments)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("skan: "))
            #expect(result.stdout.isEmpty)
        }

        @Test("replacing Apple's P-256 key makes Apple's postbacks invalid; trusting a key adds it")
        func keyOptions() async throws {
            let replaced = try await SkanProcess.run(["verify", "--apple-key-p256", "Keys/test/simulated-apple-p256-public-key.pem",
                                                "Samples/postbacks/skan-2.2-apple-doc.json"])
            #expect(replaced.status == 1)
            #expect(replaced.stdout.contains("invalid-signature"))
            let added = try await SkanProcess.run(["verify", "--trust-key", "Keys/test/simulated-apple-p256-public-key.pem",
                                             "Samples/postbacks/skan-2.2-apple-doc.json"])
            #expect(added.status == 0)
        }

        @Test("keygen, sign and verify-impression work together; a wrong key is refused")
        func keygenSignVerify() async throws {
            let folder = try TemporaryFolder.current.appendingPathComponent("keys")
            let keygen = try await SkanProcess.run(["keygen", "--out", folder.path])
            #expect(keygen.status == 0, "\(keygen.stderr)")
            let base64 = try #require(keygen.lines.last)
            #expect(try ECPublicKey(text: base64).curve == .p256)
            #expect(try await SkanProcess.run(["keygen", "--out", folder.path]).status == 2, "refuses to overwrite")

            let key = folder.appendingPathComponent("private-key.pem").path
            let signed = try await SkanProcess.run(["sign", "--key", key, "--version", "4.0", "--ad-network-id", "example.skadnetwork",
                                              "--source-identifier", "5239", "--itunes-item-id", "525463029",
                                              "--source-app-id", "0", "--fidelity-type", "0"])
            #expect(signed.status == 0, "\(signed.stderr)")
            #expect(signed.stdout.contains("\"adNetworkIdentifier\":\"example.skadnetwork\""))
            let good = try await SkanProcess.run(["verify-impression", "--public-key", base64, "-"], stdin: signed.stdout)
            #expect(good.status == 0)
            #expect(good.stdout.contains("valid version=4.0 kind=view-through"))
            let wrong = try await SkanProcess.run(["verify-impression", "--public-key", "Keys/test/ad-network-public-key.pem", "-"], stdin: signed.stdout)
            #expect(wrong.status == 1)
            #expect(wrong.stdout.contains("invalid-signature"))
        }

        @Test("sign --input signs each CSV row, reports bad rows on stderr and exits 1")
        func signCSV() async throws {
            let csv = try folderFile("impressions.csv", """
                version,ad-network-id,campaign-id,itunes-item-id,source-app-id,nonce,timestamp
                3.0,example.skadnetwork,42,525463029,0,68753a44-4d6f-1226-9c60-0050e4c00067,1700000000000
                3.0,example.skadnetwork,101,525463029,0,,
                2.0,example.skadnetwork,7,525463029,12345,,
                """)
            let result = try await SkanProcess.run(["sign", "--key", "Keys/test/ad-network-private-key.pem", "--input", csv.path])
            #expect(result.status == 1)
            #expect(result.lines.count == 2)
            #expect(result.stdout.contains("68753a44-4d6f-1226-9c60-0050e4c00067"))
            #expect(result.stderr.contains("row 3: campaign-id must be an integer 1...100, got 101"))
            let verify = try await SkanProcess.run(["verify-impression", "--public-key", "Keys/test/ad-network-public-key.pem", "-"], stdin: result.stdout)
            #expect(verify.status == 0, "\(verify.stdout)")
        }

        func folderFile(_ name: String, _ text: String) throws -> URL {
            let url = try TemporaryFolder.current.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url
        }

        @Test("ingest prints its progress bar's last line once and the counts, then finds duplicates on a second run")
        func ingestProgress() async throws {
            let db = try TemporaryFolder.current.path("ingest-\(UUID().uuidString).sqlite")
            let first = try await SkanProcess.run(["ingest", "--db", db, "Samples/postbacks/apple-examples.jsonl"])
            #expect(first.status == 0, "\(first.stderr)")
            // Apple's 2.1 and 2.2 examples share a network and transaction id, so the dedup key makes the second a repeat.
            #expect(first.stdout == "ingested 7 records into \(db): accepted 6, duplicate 1\n")
            // Standard error is a pipe here, so every drawing is a line: the 100% line must appear once.
            let bars = first.stderr.split(separator: "\n").filter { $0.contains("records") }
            #expect(bars == ["[##############################] 100% 7 records"])
            let second = try await SkanProcess.run(["ingest", "--db", db, "Samples/postbacks/apple-examples.jsonl"])
            #expect(second.stdout == "ingested 7 records into \(db): duplicate 7\n")
        }
    }

    @Suite("skan demo", .serialized)
    struct SkanDemoTests {
        @Test("demo posts a simulated campaign to an in-process collector and reports what was stored")
        func demo() async throws {
            let result = try await SkanProcess.run(["demo", "--devices", "150", "--seed", "7"])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.lines
            let delivered = try #require(lines.first { $0.hasPrefix("delivered") })
            let count = try #require(Int(delivered.split(separator: " ")[1]))
            #expect(delivered.contains("0 retries, 0 given up"))
            // The table's postbacks column adds up to what was delivered: every postback was accepted and stored.
            let header = try #require(lines.firstIndex { $0.hasPrefix("ad_network_id") })
            let columns = lines[header].split(separator: " ", omittingEmptySubsequences: true)
            let postbacksColumn = try #require(columns.firstIndex(of: "postbacks"))
            let rows = lines[(header + 2)...].prefix { !$0.isEmpty }
            let stored = rows.map { Int($0.split(separator: " ", omittingEmptySubsequences: true)[postbacksColumn]) ?? 0 }.reduce(0, +)
            #expect(count > 0)
            #expect(stored == count)
            let folder = try #require(lines.first { $0.hasPrefix("left behind in ") }).dropFirst("left behind in ".count).dropLast()
            #expect(FileManager.default.fileExists(atPath: "\(folder)/skan.sqlite"))
            #expect(FileManager.default.fileExists(atPath: "\(folder)/report.csv"))
            try? FileManager.default.removeItem(atPath: String(folder))
        }
    }

    @Suite("simulate → ingest → report", .serialized)
    struct SimulateIngestReportTests {
        @Test("the command line gives the same golden CSV as the library path")
        func goldenThroughTheBinary() async throws {
            let folder = try TemporaryFolder.current.url
            let postbacks = folder.appendingPathComponent("p.jsonl").path
            let database = folder.appendingPathComponent("skan.sqlite").path
            let simulate = try await SkanProcess.run(["simulate", "--campaign", "Samples/campaigns/skan-4.0-subscription.json",
                                                "--seed", "1", "--devices", "400", "--out", postbacks])
            #expect(simulate.status == 0, "\(simulate.stderr)")
            // Developer copies are exact copies: ingesting them as well only adds duplicates, as at a real collector.
            let ingest = try await SkanProcess.run(["ingest", "--db", database,
                                              "--trust-key", "Keys/test/simulated-apple-p256-public-key.pem", postbacks])
            #expect(ingest.status == 0, "\(ingest.stderr)")
            let report = try await SkanProcess.run(["report", "--db", database, "--by", "ad-network,window,tier",
                                              "--schema", "Samples/schemas/skan-4.0-subscription.csv", "--format", "csv"])
            #expect(report.status == 0, "\(report.stderr)")
            let golden = try String(contentsOf: SkanProcess.packageRoot.appendingPathComponent(
                "Tests/SKANReportsTests/Golden/skan-4.0-subscription--ad-network-window-tier--arrival.csv"), encoding: .utf8)
            #expect(report.stdout == golden)
        }

        @Test("each AdAttributionKit sample simulates, verifies line by line, ingests and reports by framework",
              arguments: ["aak-mixed", "aak-re-engagement"])
        func adAttributionKitSample(name: String) async throws {
            let folder = try TemporaryFolder.current.url
            let postbacks = folder.appendingPathComponent("p.jsonl").path
            let database = folder.appendingPathComponent("skan.sqlite").path
            let keys = ["--trust-key", "Keys/test/simulated-apple-p256-public-key.pem",
                        "--aak-key", "simulated-apple-aak/0=Keys/test/simulated-apple-aak-public-key.pem"]
            let simulate = try await SkanProcess.run(["simulate", "--campaign", "Samples/campaigns/\(name).json",
                                                      "--seed", "3", "--devices", "400", "--out", postbacks])
            #expect(simulate.status == 0, "\(simulate.stderr)")
            let lines = try String(contentsOfFile: postbacks, encoding: .utf8).split(separator: "\n")
            #expect(lines.count > 100)
            let verify = try await SkanProcess.run(["verify"] + keys + [postbacks])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stdout.split(separator: "\n").filter { $0.contains(" valid framework=adattributionkit") }.count > 50)
            #expect(verify.stdout.split(separator: "\n").allSatisfy { $0.contains(" valid ") })
            // Without the simulated AdAttributionKit key, those lines are refused: Apple's keys never sign them.
            let untrusted = try await SkanProcess.run(["verify", "--trust-key", "Keys/test/simulated-apple-p256-public-key.pem", postbacks])
            #expect(untrusted.status == 1)
            let ingest = try await SkanProcess.run(["ingest", "--db", database] + keys + [postbacks])
            #expect(ingest.status == 0, "\(ingest.stderr)")
            let report = try await SkanProcess.run(["report", "--db", database, "--by", "framework,conversion-type", "--format", "csv"])
            #expect(report.status == 0, "\(report.stderr)")
            // The report counts each ad network postback once (developer copies are duplicates at the collector).
            let networkLines = lines.filter { $0.contains(#""recipient":"ad-network""#) }.count
            let rows = report.stdout.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            #expect(rows.reduce(0) { $0 + (Int($1[2]) ?? 0) } == networkLines)
            #expect(rows.contains { $0[0] == "adattributionkit" })
            if name == "aak-re-engagement" { #expect(rows.contains { $0[1] == "re-engagement" }) }
            if name == "aak-mixed" { #expect(rows.contains { $0[0] == "skadnetwork" }) }
        }
    }
}
