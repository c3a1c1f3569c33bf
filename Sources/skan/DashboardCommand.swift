import ArgumentParser
import Foundation
import Logging
import SKANDashboard
import SKANHTTP
import SKANReports
import SKANStore

/// `skan dashboard`: the collector's numbers as pages in a browser.
struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Serve the stored postbacks as charts and tables in a browser (overview, values, windows, frameworks, refused, integrity, relay, live).",
        discussion: """
            Pages are server-rendered HTML that read without JavaScript; charts use Chart.js from Debian's \
            libjs-chart.js (\(Dashboard.debianChartJS)), served by the dashboard itself, never from a CDN. Filters \
            (from, to, network, campaign, window) live in the URL. Every panel's CSV link returns exactly \
            skan report --format csv for its fields and the view. On a non-loopback --host a --token-file is required.
            """
    )

    @Option(help: "The collector's SQLite database, or a postgres:// URL.")
    var db = "skan.sqlite"

    @Option(help: "The address to bind (loopback: this machine only; any other needs --token-file).")
    var host = "127.0.0.1"

    @Option(help: "The port (0 picks a free one).")
    var port = 8090

    @Option(help: "A file whose first line is the bearer token requests must carry (mode 600).")
    var tokenFile: String?

    @Option(help: "Conversion value schema CSV, to decode events and revenue (as skan report --schema).")
    var schema: String?

    @Option(help: "Log level.")
    var logLevel: LogLevelArgument = .info

    @OptionGroup var listener: ListenerOptions

    @OptionGroup var deployment: DeploymentOptions

    func run() async throws {
        let location = try StoreLocation(db)
        let logger = LogSetup.make(label: "skan.dashboard", level: logLevel.level)
        let frontDoor = try listener.frontDoor(logger: logger)
        do {
            var conversionSchema: ConversionSchema?
            if let schema {
                conversionSchema = try ConversionSchema.load(path: schema)
                // Pages count arrival days; a schema's dated versions are chosen by install day, so they would
                // decode every page's values by the wrong version or not at all.
                if conversionSchema?.isDated == true {
                    throw CLIError("--schema: \(schema) has versions valid from different days (valid_from), which "
                                   + "need install days; the dashboard counts arrival days: give it a schema without "
                                   + "valid_from, and use skan report --date install for the dated one")
                }
            }
            let access = try ServeCommand.access(host: host, tokenFile: tokenFile,
                                                 options: .init(host: "--host", tokenFile: "--token-file"))
            try await location.withCampaignMapStore { campaignMaps in
                try await serve(location, campaignMaps: campaignMaps, schema: conversionSchema, access: access,
                                logger: logger, frontDoor: frontDoor)
            }
        } catch let error as DashboardError {
            throw CLIError(error.reason)
        } catch let error as ReportError {
            throw CLIError(error.reason)
        } catch let error as ListenerError {
            throw CLIError(error.reason, exitCode: .failure)
        }
    }

    /// Serves the pages until the process is told to stop, names from `campaignMaps`.
    private func serve(_ location: StoreLocation, campaignMaps: any CampaignMapStore, schema: ConversionSchema?,
                       access: OperatorAccess, logger: Logger, frontDoor: FrontDoor) async throws {
        try await location.withReader { reader in
            let dashboard = try await Dashboard(reader: reader, schema: schema, campaignMaps: campaignMaps)
            if !dashboard.hasCharts {
                logger.warning("Chart.js is not installed at \(Dashboard.debianChartJS) (Debian: apt-get install libjs-chart.js); pages show tables only")
            }
            let server = DashboardServer(dashboard: dashboard, access: access, port: port, logger: logger,
                                         frontDoor: frontDoor)
            let host = host
            try await server.run { port in
                FileHandle.standardOutput.write(Data("skan dashboard: http://\(host):\(port)/\n".utf8))
            }
        }
    }
}
