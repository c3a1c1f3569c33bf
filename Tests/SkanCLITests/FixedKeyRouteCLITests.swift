import Foundation
import Testing

extension CommandLineSuites {
    /// The fixed-key table path (issue #40) as an operator sees it: `skan bench core` shows both routes, and
    /// `SKAN_P256_TABLE=off` sends trusted keys back to swift-crypto with the same verdicts.
    @Suite("Fixed-key verification route")
    struct FixedKeyRouteCLITests {
        static let routeMeasures = ["bench", "core", "--seconds", "0.05", "--threads", "1",
                                    "--only", "verify-signature-p256-table", "--only", "verify-signature-p256-swift-crypto"]

        /// `skan` with `SKAN_P256_TABLE=off` in its environment.
        static func runSwitchedOff(_ arguments: [String]) async throws -> SkanProcess.Result {
            try await SkanProcess.offThread {
                try SkanProcess.runBlocking(arguments, environment: ["SKAN_P256_TABLE": "off"]) { _ in }
            }
        }

        static func route(_ line: String?) -> String? {
            guard let data = line?.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
            return object["route"] as? String
        }

        @Test("skan bench core measures the table and swift-crypto; switched off, both lines are swift-crypto")
        func benchShowsBothRoutes() async throws {
            let normal = try await SkanProcess.run(Self.routeMeasures)
            #expect(normal.status == 0, "\(normal.stderr)")
            #expect(normal.lines.count == 2)
            #if arch(x86_64) && os(Linux)
            #expect(Self.route(normal.lines.first) == "table")
            #else
            #expect(Self.route(normal.lines.first) == "swift-crypto")
            #endif
            #expect(Self.route(normal.lines.last) == "swift-crypto")

            let off = try await Self.runSwitchedOff(Self.routeMeasures)
            #expect(off.status == 0, "\(off.stderr)")
            #expect(off.lines.map(Self.route) == ["swift-crypto", "swift-crypto"])
        }

        @Test("skan verify gives the same verdicts with the table path switched off")
        func verifySwitchedOffSameOutput() async throws {
            let arguments = ["verify", "--format", "json", "--aak-key",
                             "simulated-apple-aak/0=Keys/test/simulated-apple-aak-public-key.pem",
                             "Samples/postbacks/apple-examples.jsonl", "Samples/postbacks/aak-simulated-apple-key.json"]
            let normal = try await SkanProcess.run(arguments)
            let off = try await Self.runSwitchedOff(arguments)
            #expect(normal.status == off.status)
            #expect(normal.lines.count >= 3)
            #expect(normal.stdout.contains(#""status":"valid""#))
            #expect(normal.stdout == off.stdout)
        }
    }
}
