import Foundation
import Hummingbird
import Logging
import Mustache
import NIOCore
import SKANCore
import SKANReports
import SKANStore

/// The collector's numbers as pages (`skan dashboard`, or mounted by `skan serve --dashboard-port`): server-rendered
/// HTML that reads without JavaScript, charts drawn in the browser by Debian's Chart.js, every number from the
/// store's read side through the same report requests as `skan report`.
///
/// Private: it shows business data, so it is served on a listener of its own, on loopback unless a bearer token
/// guards it (``DashboardServer``, under SKANHTTP's `OperatorAccess`).
public struct Dashboard: Sendable {
    /// Where Debian's `libjs-chart.js` puts Chart.js's browser build.
    public static let debianChartJS = "/usr/share/javascript/chart.js/chart.min.js"

    let reader: any PostbackReader
    let schema: ConversionSchema?
    let templates: MustacheLibrary
    let assets: DashboardAssets
    /// How many refusals the refused page lists.
    let latestRefusals = 20
    /// The networks and campaigns for the pickers and the campaign filter.
    let known = KnownValuesCache()
    /// The campaign map `skan campaigns import` stored, for the names beside the numbers.
    let campaignMaps: (any CampaignMapStore)?
    /// The stored map as last read, kept until an import is recorded.
    let campaignMapCache = CampaignMapCache()
    /// The relay page's delivery side, when this process delivers (`skan serve --relay FILE --dashboard-port N`);
    /// without it the page shows the outbox alone.
    public var relayDelivery: RelayDelivery?
    /// The time pages measure ages against (the oldest queued entry's).
    var now: @Sendable () -> Date = { Date() }

    /// A dashboard over `reader`. Throws when its templates are missing from the installation; a missing Chart.js
    /// is not an error (pages keep their tables), see ``DashboardAssets/chartJS``.
    /// `campaignMaps`, when given, names the campaigns pages show (``CampaignLabels``).
    public init(reader: any PostbackReader, schema: ConversionSchema? = nil, campaignMaps: (any CampaignMapStore)? = nil,
                chartJS: String = Dashboard.debianChartJS) async throws(DashboardError) {
        self.reader = reader
        self.schema = schema
        self.campaignMaps = campaignMaps
        assets = try DashboardAssets(chartJS: chartJS)
        do {
            templates = try await MustacheLibrary(directory: assets.templates)
        } catch {
            throw DashboardError(.installation, "cannot read the dashboard's templates in \(assets.templates): \(error)")
        }
    }

    /// Whether charts can be drawn: `false` when Chart.js is not installed (the pages say so).
    public var hasCharts: Bool { assets.chartJS != nil }

    /// Adds the pages, `/report.csv`, `/live.json` and the assets to `router`.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        for page in DashboardPage.allCases {
            router.get(RouterPath(page.path)) { request, _ in
                await self.respond(page: page, query: Self.query(request))
            }
        }
        router.get("/report.csv") { request, _ in await self.csv(query: Self.query(request)) }
        router.get("/live.json") { _, _ in await self.liveJSON() }
        router.get("/assets/chart.js") { _, _ in self.asset(self.assets.chartJS, type: "text/javascript") }
        router.get("/assets/dashboard.js") { _, _ in self.asset(self.assets.script, type: "text/javascript") }
        router.get("/assets/dashboard.css") { _, _ in self.asset(self.assets.style, type: "text/css") }
    }

    static func query(_ request: Request) -> [String: String] {
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        return query
    }

    // MARK: - Pages

    func respond(page: DashboardPage, query: [String: String]) async -> Response {
        let view: DashboardView
        do {
            view = try DashboardView(query: query)
        } catch {
            return Self.text(.badRequest, "dashboard: \(error.reason)\n")
        }
        do {
            let model = try await PageContent.build(page, view: view, reader: reader, schema: schema,
                                                    known: try await known.values(from: reader),
                                                    names: try await names(for: view),
                                                    latestRefusals: latestRefusals, hasCharts: hasCharts,
                                                    relay: relayDelivery, now: now())
            guard let html = templates.render(model, withTemplate: "page") else {
                return Self.text(.internalServerError, "dashboard: the page template is missing\n")
            }
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
        } catch {
            return Self.storeUnavailable(error)
        }
    }

    /// The names of the stored campaign map for `view`. A page reads the list of imports (a few rows); the map itself
    /// is read again only after an import, so that an import shows on the next page without every page reading
    /// and indexing thousands of rows.
    func names(for view: DashboardView) async throws -> CampaignLabels {
        guard let campaignMaps else { return .none }
        guard let index = try await campaignMapCache.index(from: campaignMaps) else { return .none }
        return CampaignLabels(index: index, network: view.network, day: view.to)
    }

    /// Exactly `skan report --format csv` for `by` and the view (with `schema=1`, the dashboard's schema too, and with
    /// `modeled=1` beside it `--modeled`'s columns; with
    /// `raw=1`, `--csv-raw`: text cells as stored, for machines). A campaign of several source identifiers is the sum
    /// of one such report per identifier, as the panel's command says.
    func csv(query: [String: String]) async -> Response {
        let view: DashboardView
        let fields: [ReportField]
        do {
            view = try DashboardView(query: query)
            fields = try query["by"].flatMap { $0.isEmpty ? nil : $0 }.map { text throws(ReportError) in try ReportField.list(text) } ?? []
        } catch let error as DashboardError {
            return Self.text(.badRequest, "dashboard: \(error.reason)\n")
        } catch {
            return Self.text(.badRequest, "dashboard: \((error as? ReportError)?.reason ?? "\(error)")\n")
        }
        do {
            let builder = PanelBuilder(reader: reader, view: view, schema: schema, known: try await known.values(from: reader))
            // `modeled=1` only with the schema: the modeled columns are decoded events.
            let decoded = query["schema"] == "1" ? schema : nil
            let report = try await builder.report(fields, schema: decoded, modeled: decoded != nil && query["modeled"] == "1")
            let text: CSVText = query["raw"] == "1" ? .raw : .spreadsheetSafe
            var bytes: [UInt8] = []
            text.appendRecord(report.header, to: &bytes)
            for row in report.rows { text.appendRecord(report.cells(row), textColumns: report.textColumns, to: &bytes) }
            return Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8", .cacheControl: "no-store"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        } catch {
            return Self.storeUnavailable(error)
        }
    }

    /// The collector's counters now, for the live page's polling.
    func liveJSON() async -> Response {
        do {
            let stats = try await reader.stats()
            let json = "{\"at\":\(Int(Date().timeIntervalSince1970 * 1000)),\"postbacks\":\(stats.postbacks),"
                + "\"refused\":\(stats.rejected + stats.rejectedDropped)}"
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
        } catch {
            return Self.storeUnavailable(error)
        }
    }

    func asset(_ path: String?, type: String) -> Response {
        guard let path, let data = FileManager.default.contents(atPath: path) else {
            return Self.text(.notFound, "dashboard: not installed\n")
        }
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: "max-age=3600"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func storeUnavailable(_ error: any Error) -> Response {
        let reason = (error as? StoreError)?.reason ?? (error as? ReportError)?.reason ?? "the store could not be read"
        return text(.serviceUnavailable, "dashboard: \(reason)\n")
    }

    static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
