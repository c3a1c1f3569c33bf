import Foundation
import Testing

extension CommandLineSuites {
    @Suite("skan simulate --trace", .serialized)
    struct SimulateTraceCLITests {
        static let campaign = ["simulate", "--campaign", "Samples/campaigns/skan-4.0-subscription.json", "--seed", "3", "--devices", "300"]

        @Test("--trace prints the timeline of the device an output line names, and nothing else")
        func traceOfAnOutputLine() async throws {
            let run = try await SkanProcess.run(Self.campaign + ["--out", "-"])
            #expect(run.status == 0, "\(run.stderr)")
            let first = try #require(run.lines.first)
            let envelope = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
            let device = try #require(envelope["device"] as? Int)
            let sendAt = try #require(envelope["send-at"] as? String)
            let installedAt = try #require(envelope["installed-at"] as? String)

            let trace = try await SkanProcess.run(Self.campaign + ["--trace", String(device)])
            #expect(trace.status == 0, "\(trace.stderr)")
            #expect(trace.lines.first?.hasPrefix("device \(device) of ") == true)
            #expect(trace.lines.contains { $0.hasPrefix("\(installedAt)  install") })
            #expect(trace.lines.contains { $0.hasPrefix("\(sendAt)  postback 0 sent to") })
            let times = trace.lines.dropFirst().map { String($0.prefix(24)) }
            #expect(times == times.sorted(), "the timeline is in time order")
        }

        @Test("--trace refuses a device outside the run and --out beside it", arguments: [["--trace", "300"], ["--trace", "1", "--out", "-"]])
        func refused(arguments: [String]) async throws {
            let run = try await SkanProcess.run(Self.campaign + arguments)
            #expect(run.status != 0)
            #expect(run.stderr.contains("--trace"))
            #expect(run.stdout.isEmpty)
        }
    }
}
