import Foundation
import SKANTestSupport
import Testing

extension CommandLineSuites {
    /// `skan serve --relay FILE --dashboard-port N`: the dashboard's Relay page shows what this collector sent.
    @Suite("Relay page beside the collector")
    struct RelayDashboardCLITests {
        @Test("a postback sent to a partner shows on /relay as sent, with nothing left queued")
        func sentShows() async throws {
            let folder = try TemporaryFolder.current.url
            let receiver = Receiver()
            let port = try await receiver.start()
            let relay = folder.appendingPathComponent("relay.json").path
            try #"{"destinations": [{"name": "partner", "url": "http://127.0.0.1:\#(port)/in"}]}"#
                .write(toFile: relay, atomically: true, encoding: .utf8)
            let db = folder.appendingPathComponent("skan.sqlite").path
            let process = Process()
            process.executableURL = SkanProcess.binary
            process.arguments = ["serve", "--db", db, "--port", "0", "--admin-port", "0", "--dashboard-port", "0",
                                 "--relay", relay, "--log-level", "warning"]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer {
                process.terminate()
                process.waitUntilExit()
            }
            var text = ""
            while !text.contains("dashboard on") || !text.hasSuffix("\n") {
                let chunk = SkanProcess.readAvailable(out.fileHandleForReading.fileDescriptor)
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            let device = try #require(Self.url(in: text, marker: "listening on"), "\(text)")
            let dashboard = try #require(Self.url(in: text, marker: "dashboard on"), "\(text)")
            let sample = SkanProcess.packageRoot.appendingPathComponent("Samples/postbacks/skan-4.0-web-fine-apple-doc.json").path
            let posted = try Self.curl(["-H", "Content-Type: application/json", "--data-binary", "@" + sample, device + "/postbacks"])
            #expect(posted.contains("accepted"), "\(posted)")
            // Sent, then settled: the page shows it once the relay has recorded the 2xx.
            var page = ""
            let end = Date().addingTimeInterval(60)
            while Date() < end {
                page = try Self.curl([dashboard + "/relay"])
                if page.contains(#"data-cell="sent">1<"#) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(receiver.accepted.count == 1)
            #expect(page.contains(#"<tr data-destination="partner">"#), "\(page)")
            #expect(page.contains(#"data-cell="sent">1<"#))
            #expect(page.contains(#"data-cell="queued">0<"#))
            #expect(page.contains(#"data-tile="relay-dead">0<"#))
            await receiver.stop()
        }

        /// The `http://host:port` of the announced line holding `marker`.
        static func url(in text: String, marker: String) -> String? {
            guard let line = text.split(separator: "\n").first(where: { $0.contains(marker) }),
                  let start = line.range(of: "http://") else { return nil }
            let rest = line[start.upperBound...]
            let hostPort = rest.prefix { !$0.isWhitespace && $0 != "/" }
            return "http://" + hostPort
        }

        static func curl(_ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["curl", "-s", "--max-time", "10"] + arguments
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
