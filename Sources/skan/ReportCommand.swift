import ArgumentParser
import Foundation
import SKANCore
import SKANReports
import SKANStore

/// `skan report`: counts of stored postbacks, grouped the way campaign managers read them.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Count stored postbacks by campaign, source, day, value ... as CSV, a table or JSON.",
        discussion: """
            Fields for --by: \(ReportField.allCases.map(\.rawValue).joined(separator: ", ")).
            Counts: postbacks, installs (winning first postbacks of downloads and redownloads), redownloads (among \
            those installs), reengagements (winning first postbacks of AdAttributionKit re-engagements), non_winning, \
            null_values and null_rate (postbacks with no fine or coarse value: null is not zero). With --schema, \
            decoded event counts and revenue low/high/mid. --date install moves each postback to its estimated \
            install day (arrival minus the device's typical delays; see docs/cli/report.md).
            --integrity counts instead, per ad network, what Apple's signature does not cover: conflicts (repeats \
            whose unsigned values differed from the counted postback), developer copies agreeing or disagreeing with \
            the network's postbacks or seen on one side only, and postbacks breaking a consistency rule \
            (docs/guides/value-integrity.md).
            """
    )

    @Option(help: "The collector's SQLite database, or a postgres:// URL.")
    var db = "skan.sqlite"

    @Option(help: "Comma-separated fields to group by, e.g. ad-network,campaign,day.")
    var by: String?

    @Option(help: "First day included, YYYY-MM-DD (UTC).")
    var from: String?

    @Option(help: "Last day included, YYYY-MM-DD (UTC).")
    var to: String?

    @Option(name: .customLong("where"), help: ArgumentHelp(
        "Count only postbacks whose FIELD (a --by field) shows VALUE, e.g. window=0; an empty VALUE matches an empty cell. Repeatable: all must hold.",
        valueName: "FIELD=VALUE"))
    var filters: [String] = []

    @Option(help: "Which day a postback counts on: arrival or install (estimated).")
    var date: String = DayBasis.arrival.rawValue

    @Option(help: "Campaign map CSV (ad_network_id,source_identifier|campaign_id,valid_from,valid_to,campaign,ad_set,creative,country): what the campaign-name, ad-set and creative fields read. Without it, the map skan campaigns import stored.")
    var campaigns: String?

    @Option(help: "Which digits of a source identifier a lower privacy tier keeps, for campaign names: trailing or leading.")
    var sourceIdentifierDigits: String = SourceIdentifierDigits.trailing.rawValue

    @Option(help: "Conversion value schema: CSV (conversion_value|coarse_value,event_name,event_count,revenue_low,revenue_high[,app_id,postback_window,valid_from]) or Google Ads' SkAdNetworkConversionValueSchema JSON.")
    var schema: String?

    @Flag(help: "With --schema: add modeled_ columns, an estimate of what the null-valued winning postbacks stand for, scaled by the valued postbacks of the same row (never mixed into the counted columns).")
    var modeled = false

    @Option(help: "Output format: csv, table or json.")
    var format: String = OutputFormat.table.rawValue

    @Option(help: "Write to this file instead of standard output.")
    var out: String?

    @Flag(help: "Print the SQL query the report runs (with its arguments) instead of running it.")
    var printSQL = false

    @Flag(help: "CSV for machines: text cells exactly as stored. By default a text cell beginning with = + - @, a tab or a CR gets a leading ' so that spreadsheets do not run it as a formula.")
    var csvRaw = false

    @Flag(help: "Count conflicts, reconciled copies and consistency rules per ad network instead (with --from, --to, --format, --out).")
    var integrity = false

    func run() async throws {
        do {
            if integrity { return try await runIntegrity() }
            guard let basis = DayBasis(rawValue: date) else {
                throw ReportError(.invalidDate, "--date must be arrival or install, got \"\(date)\"")
            }
            guard let outputFormat = OutputFormat(rawValue: format) else {
                throw ReportError(.output, "--format must be csv, table or json, got \"\(format)\"")
            }
            let fields = try by.map { text throws(ReportError) in try ReportField.list(text) } ?? []
            var conversionSchema: ConversionSchema?
            if let schema {
                conversionSchema = try ConversionSchema.load(path: schema)
            }
            let conditions = try filters.map { text throws(ReportError) in try ReportFilter(parsing: text) }
            let location = try StoreLocation(db)
            var names = try campaignMap()
            if names == nil, !printSQL, ReportRequest.namesCampaigns(fields: fields, filters: conditions) {
                names = try await storedCampaignMap(location)
            }
            let request = try ReportRequest(fields: fields, from: from, to: to, day: basis, filters: conditions,
                                            schema: conversionSchema, campaigns: names, modeled: modeled)
            if printSQL {
                let (sql, arguments) = location.statement(for: request.aggregate)
                print(sql.trimmingCharacters(in: .whitespacesAndNewlines) + ";")
                if !arguments.isEmpty { print("-- arguments: " + arguments.joined(separator: ", ")) }
                return
            }
            try await location.withReader { database in
                let stream = try BufferedOutput.to(out, protecting: location.protectedFiles)
                defer { stream.close() }
                let layout = Report(request: request)
                let writer = TableWriter(format: outputFormat, stream: stream, csvText: csvRaw ? .raw : .spreadsheetSafe)
                writer.begin(header: layout.header, textColumns: layout.textColumns)
                try await ReportBuilder.stream(request, on: database) { writer.append(layout.cells($0)) }
                try writer.finish()
                try stream.commit()
            }
        } catch let error as ReportError {
            throw CLIError(error.reason)
        } catch let error as CampaignMapError {
            throw CLIError(error.reason)
        }
    }

    /// `--integrity`: one row per ad network of ``IntegrityRow``'s counts.
    private func runIntegrity() async throws {
        guard by == nil, filters.isEmpty, schema == nil, campaigns == nil, !printSQL, date == DayBasis.arrival.rawValue else {
            throw CLIError("--integrity counts per ad network by arrival day; it takes only --db, --from, --to, --format, --out and --csv-raw")
        }
        guard let outputFormat = OutputFormat(rawValue: format) else {
            throw ReportError(.output, "--format must be csv, table or json, got \"\(format)\"")
        }
        // The same checks of the dates as a report's.
        _ = try ReportRequest(fields: [], from: from, to: to, day: .arrival, filters: [], schema: nil, campaigns: nil)
        let location = try StoreLocation(db)
        try await location.withReader { database in
            let rows = try await IntegrityReport.rows(from: database, from: from, to: to)
            let stream = try BufferedOutput.to(out, protecting: location.protectedFiles)
            defer { stream.close() }
            let writer = TableWriter(format: outputFormat, stream: stream, csvText: csvRaw ? .raw : .spreadsheetSafe)
            try writer.write(header: IntegrityRow.header, rows: rows.map(\.cells), textColumns: 0..<1)
            try stream.commit()
        }
    }

    /// The map `skan campaigns import` stored, read with the digits `--source-identifier-digits` keeps; `nil` when
    /// none was imported (the request then says what to give).
    private func storedCampaignMap(_ location: StoreLocation) async throws -> CampaignMap? {
        guard let digits = SourceIdentifierDigits(rawValue: sourceIdentifierDigits) else { return nil }
        if location.isFile, !FileManager.default.fileExists(atPath: db) { return nil }
        let entries = try await location.withCampaignMapStore { try await $0.entries() }
        return entries.isEmpty ? nil : try CampaignMap(entries: entries, digits: digits)
    }

    /// The map `--campaigns` names, read with the digits `--source-identifier-digits` keeps.
    private func campaignMap() throws -> CampaignMap? {
        guard let digits = SourceIdentifierDigits(rawValue: sourceIdentifierDigits) else {
            throw CLIError("--source-identifier-digits must be trailing or leading, got \"\(sourceIdentifierDigits)\"")
        }
        guard let campaigns else { return nil }
        guard let text = try? String(contentsOfFile: campaigns, encoding: .utf8) else {
            throw CLIError("--campaigns: cannot read \(campaigns)\(FileCheck.missingFolder(of: campaigns) == nil ? "" : " (no such folder)")")
        }
        return try CampaignMap(csv: text, source: campaigns, digits: digits)
    }
}

/// `skan export`: every stored (or refused) postback, one row each.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export every stored postback (or, with --rejected, every refused one; with --conflicts, every kept repeat) as CSV or JSON lines.",
        discussion: "Streams row by row: memory stays flat however large the database."
    )

    @Option(help: "The collector's SQLite database, or a postgres:// URL.")
    var db = "skan.sqlite"

    @Flag(help: "Export the refused postbacks (rejected_postbacks) instead.")
    var rejected = false

    @Flag(help: "Export the kept repeats (postback_repeats) instead: conflicts (differing not empty) and developer copies beside the network's postbacks.")
    var conflicts = false

    @Option(help: "csv or jsonl.")
    var format: String = Exporter.Format.csv.rawValue

    @Option(help: "Write to this file instead of standard output.")
    var out: String?

    @Flag(help: "CSV for machines: text cells exactly as stored. By default a text cell beginning with = + - @, a tab or a CR gets a leading ' so that spreadsheets do not run it as a formula.")
    var csvRaw = false

    func run() async throws {
        do {
            guard let exportFormat = Exporter.Format(rawValue: format) else {
                throw ReportError(.output, "--format must be csv or jsonl, got \"\(format)\"")
            }
            guard !(rejected && conflicts) else { throw CLIError("--rejected and --conflicts name two tables; choose one") }
            let table: ExportTable = rejected ? .rejected : conflicts ? .repeats : .postbacks
            let location = try StoreLocation(db)
            try await location.withReader { database in
                let stream = try BufferedOutput.to(out, protecting: location.protectedFiles)
                defer { stream.close() }
                try await Exporter.export(from: database, table: table, format: exportFormat,
                                          csvText: csvRaw ? .raw : .spreadsheetSafe, to: stream)
                try stream.commit()
            }
        } catch let error as ReportError {
            throw CLIError(error.reason)
        }
    }
}
