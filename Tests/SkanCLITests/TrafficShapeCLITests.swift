import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// `skan bench postbacks --shape traffic`: the one source of benchmark and budget data, so it must look like a
    /// network's traffic (or the benchmarks hide per-key costs again) and be the same for the same seed (or the
    /// instruction budgets move with it).
    @Suite("skan bench postbacks --shape traffic", .serialized)
    struct TrafficShapeCLITests {
        static func write(_ arguments: [String], in folder: URL, name: String) async throws -> [String] {
            let path = folder.appendingPathComponent(name).path
            let run = try await SkanProcess.run(["bench", "postbacks", "--count", "3000", "--out", path] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        }

        @Test("the same seed writes the same bytes; another seed other postbacks")
        func deterministic() async throws {
            let folder = try TemporaryFolder.current.url
            let first = try await Self.write(["--seed", "5"], in: folder, name: "a.jsonl")
            let again = try await Self.write(["--seed", "5"], in: folder, name: "b.jsonl")
            let other = try await Self.write(["--seed", "6"], in: folder, name: "c.jsonl")
            #expect(first.count == 3000)
            #expect(first == again)
            #expect(Set(first).isDisjoint(with: other))
        }

        @Test("the postbacks mix frameworks, networks, source identifiers, tiers, windows, values and days, and all verify")
        func shape() async throws {
            let folder = try TemporaryFolder.current.url
            let lines = try await Self.write([], in: folder, name: "traffic.jsonl")
            var frameworks: [String: Int] = [:], networks = Set<String>(), sources = Set<String>(), digits = Set<Int>()
            var windows: [Int: Int] = [:], values = Set<Int>(), coarse = Set<String>(), days = Set<Int64>()
            var nonWinning = 0, redownloads = 0
            for line in lines {
                let envelope = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                days.insert(try #require(envelope["send-at-ms"] as? Int64) / 86_400_000)
                let postback = try #require(envelope["postback"] as? [String: Any])
                var fields = postback
                if let jws = postback["jws-string"] as? String {
                    frameworks["aak", default: 0] += 1
                    var payload = String(jws.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+")
                        .replacingOccurrences(of: "_", with: "/")
                    payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
                    let decoded = try #require(Data(base64Encoded: payload))
                    fields.merge(try #require(try JSONSerialization.jsonObject(with: decoded) as? [String: Any])) { a, _ in a }
                    networks.insert(try #require(fields["ad-network-identifier"] as? String))
                    if fields["conversion-type"] as? String == "redownload" { redownloads += 1 }
                } else {
                    frameworks[try #require(postback["version"] as? String), default: 0] += 1
                    networks.insert(try #require(postback["ad-network-id"] as? String))
                    if postback["redownload"] as? Bool == true { redownloads += 1 }
                }
                if let source = fields["source-identifier"] as? String { sources.insert(source); digits.insert(source.count) }
                if let window = fields["postback-sequence-index"] as? Int { windows[window, default: 0] += 1 }
                if let value = fields["conversion-value"] as? Int { values.insert(value) }
                if let value = fields["coarse-conversion-value"] as? String { coarse.insert(value) }
                if fields["did-win"] as? Bool == false { nonWinning += 1 }
            }
            // 15 % AdAttributionKit, 5 % SKAdNetwork 3.0, the rest 4.0, within sampling error of 3,000 draws.
            #expect((350...560).contains(frameworks["aak", default: 0]), "\(frameworks)")
            #expect((90...220).contains(frameworks["3.0", default: 0]), "\(frameworks)")
            #expect(networks.count == 16, "8 networks in each framework")
            #expect(sources.count > 1000 && digits == [2, 3, 4])
            #expect(windows.keys.sorted() == [0, 1, 2] && windows[0, default: 0] > windows[2, default: 0] * 3)
            #expect(values.count == 64 && coarse == ["low", "medium", "high"])
            #expect((200...400).contains(nonWinning) && (200...400).contains(redownloads))
            #expect(days.count == 30)

            let verified = try await SkanProcess.run([
                "verify", "--format", "json", "--apple-key-p256", "Keys/test/simulated-apple-p256-public-key.pem",
                "--aak-key", "simulated-apple-aak/0=Keys/test/simulated-apple-aak-public-key.pem",
                folder.appendingPathComponent("traffic.jsonl").path,
            ])
            #expect(verified.status == 0, "\(verified.stderr)")
            #expect(verified.lines.count == 3000 && verified.lines.allSatisfy { $0.contains(#""status":"valid""#) },
                    "\(verified.lines.first { !$0.contains(#""status":"valid""#) } ?? "")")
        }

        @Test("--bare writes postbacks as a device posts them, with no AdAttributionKit at --aak-share 0")
        func bare() async throws {
            let folder = try TemporaryFolder.current.url
            let lines = try await Self.write(["--bare", "--aak-share", "0"], in: folder, name: "bare.jsonl")
            #expect(lines.allSatisfy { $0.hasPrefix(#"{"version":"#) })
            let refused = try await SkanProcess.run(["bench", "postbacks", "--aak-share", "2", "--out", "/dev/null"])
            #expect(refused.status != 0 && refused.stderr.contains("--aak-share must be between 0 and 1, got 2.0"), "\(refused.stderr)")
        }
    }
}
