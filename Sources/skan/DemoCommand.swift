import ArgumentParser
import Foundation
import Logging
import SKANCollector
import SKANCore
import SKANDashboard
import SKANReports
import SKANSimulator
import SKANStore
import Synchronization

/// `skan demo`: the whole flow on one machine — a collector, simulated iPhones posting to it, and the report.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole flow once: collector, simulated campaign posted over HTTP, report.",
        discussion: """
            Makes a temporary folder with a new database, starts the collector on a free loopback port trusting the \
            campaign's simulated Apple keys (Keys/test/), simulates the sample 4.0 campaign and POSTs every ad \
            network postback to it in send-time order, stops the collector, and prints the report as a table. \
            Run it from the package root (it reads Samples/). Everything it made stays in the folder it names.
            """
    )

    @Option(help: "The campaign to simulate.")
    var campaign = "Samples/campaigns/skan-4.0-subscription.json"

    @Option(help: "Conversion value schema for the report (default: Samples/schemas/<campaign name>.csv if present).")
    var schema: String?

    @Option(help: "Simulated devices.")
    var devices = 2000

    @Option(help: "Seed of the simulation.")
    var seed: UInt64 = 1

    @Option(help: "Report grouping (see skan report --help).")
    var by = "ad-network,window"

    @Option(help: "The collector's database: an empty postgres:// database, or (default) a new skan.sqlite in the demo's folder.")
    var db: String?

    func run() async throws {
        let setup: CampaignSetup
        do { setup = try CampaignFile.load(path: campaign) } catch {
            throw CLIError("\(error.reason) (run skan demo from the package root, where Samples/ is)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("skan-demo-\(UUID().uuidString.prefix(8).lowercased())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let database = db ?? folder.appendingPathComponent("skan.sqlite").path
        let location = try StoreLocation(database)
        let postbacksPath = folder.appendingPathComponent("postbacks.jsonl").path
        let reportPath = folder.appendingPathComponent("report.csv").path

        var ring = KeyRing.apple
        for key in setup.trustedKeys { ring.add(key) }
        let store = try location.openStore()
        // The collector stamps each postback with the simulated time its device sent it, not the wall clock's: the
        // campaign's five weeks then land on their own days, for `--by day` and the dashboard's charts by day.
        let sendTime = SendTimeClock()
        var logger = Logger(label: "skan.demo")
        logger.logLevel = .warning
        let collector: Collector
        do {
            // One simulator on loopback stands for every device of the campaign: no per-address limit.
            var configuration = CollectorConfiguration(host: "127.0.0.1", port: 0)
            configuration.rateLimit.perSecond = 0
            collector = try Collector(configuration: configuration, store: store,
                                      verifier: AttributionVerifier(keyRing: ring), logger: logger,
                                      now: { sendTime.date })
        } catch {
            throw CLIError(error.reason)
        }

        let simulation = Simulation(setup: setup, seed: seed, devices: devices)
        let started = Date()
        let (summary, delivery, port) = try await collector.serve { port in
            try await Self.simulateAndPost(simulation, to: port, writingTo: postbacksPath, clock: sendTime)
        }
        let seconds = Date().timeIntervalSince(started)

        let schemaPath = schema ?? "Samples/schemas/\(URL(fileURLWithPath: campaign).deletingPathExtension().lastPathComponent).csv"
        var lines = ["skan demo: \(setup.campaign.name)", ""]
        lines += summary.lines
        lines.append("delivered          \(delivery.delivered) postbacks to http://127.0.0.1:\(port)/postbacks in \(String(format: "%.1f", seconds)) s (\(delivery.retries) retries, \(delivery.failed) given up)")
        print(lines.joined(separator: "\n") + "\n")
        // The table goes straight to the descriptor; what print() buffered must come out first (nil: all streams).
        fflush(nil)
        let reader = try await location.openReader()
        var conversionSchema: ConversionSchema?
        // Hosted while the report reads it (a PostgreSQL pool's connections).
        try await StoreHost.running([reader]) {
            do throws(ReportError) {
                // The default schema is used when the campaign has one; a schema given with --schema must be read.
                if schema != nil || FileManager.default.fileExists(atPath: schemaPath) {
                    conversionSchema = try ConversionSchema.load(path: schemaPath)
                }
                let request = try ReportRequest(fields: try ReportField.list(by), schema: conversionSchema)
                let report = try await ReportBuilder.run(request, on: reader)
                await reader.close()
                let rows = report.rows.map(report.cells)
                let table = BufferedOutput(descriptor: STDOUT_FILENO)
                try TableWriter(format: .table, stream: table).write(header: report.header, rows: rows)
                let csv = try BufferedOutput(path: reportPath, protecting: location.protectedFiles)
                try TableWriter(format: .csv, stream: csv).write(header: report.header, rows: rows, textColumns: report.textColumns)
                try csv.commit()
            } catch {
                await reader.close()
                throw CLIError(error.reason)
            }
        }
        // A server's database is not in the folder: the closing lines name it where it is.
        let databaseLine = if location.isFile {
            "  skan.sqlite        the collector's database (try: skan report --db \(location.display) --by day --format table)"
        } else {
            "  (the collector's database is \(location.display); try: skan report --db \(location.display) --by day --format table)"
        }
        // The dashboard over the same database, with the schema the report above decoded through (revenue needs it).
        let dashboard = (["skan dashboard --db", ShellQuoting.quote(location.display)]
            + (conversionSchema != nil ? ["--schema", ShellQuoting.quote(schemaPath)] : [])).joined(separator: " ")
        // A campaign with AdAttributionKit ads also needs the simulated AdAttributionKit key, by its kid.
        let aakKey = setup.trustedKeys.compactMap(\.kid).map { " --aak-key \($0)=Keys/test/simulated-apple-aak-public-key.pem" }.joined()
        print("""

            left behind in \(folder.path):
            \(databaseLine)
              postbacks.jsonl    what the devices sent, in send-time order (try: skan verify --trust-key Keys/test/simulated-apple-p256-public-key.pem\(aakKey) \(postbacksPath))
              report.csv         the report above as CSV

            see it in a browser: \(dashboard)
            """)
    }

    /// Runs the simulation on a Dispatch thread (it blocks on each HTTP reply, as a device's queue does) and
    /// posts every ad network postback to the collector.
    static func simulateAndPost(_ simulation: Simulation, to port: Int, writingTo path: String,
                                clock: SendTimeClock) async throws
        -> (SimulationSummary, PostbackDelivery.Report, Int) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let url = URL(string: "http://127.0.0.1:\(port)/postbacks")!
                    let delivery = PostbackDelivery(transport: HTTPPostbackTransport(url: url), clock: clock)
                    var writer = try LineWriter(path: path)
                    let summary = try simulation.run { record in
                        try writer.write(record)
                        if record.recipient == .adNetwork { try delivery.enqueue(record) }
                    }
                    try writer.close()
                    try delivery.finish()
                    continuation.resume(returning: (summary, delivery.report, port))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
