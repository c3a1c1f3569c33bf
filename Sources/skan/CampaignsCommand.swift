import ArgumentParser
import Foundation
import SKANCore
import SKANReports
import SKANStore

/// `skan campaigns`: the campaign map a fleet shares, kept in the store.
struct CampaignsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "campaigns",
        abstract: "Import and list the campaign map (the names of each network's campaign numbers) in the store.",
        subcommands: [CampaignsImportCommand.self, CampaignsListCommand.self]
    )
}

/// `skan campaigns import FILE.csv`: replaces the stored map of the networks the file names.
struct CampaignsImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a campaign map CSV into the store, replacing the stored rows of the networks it names.",
        discussion: """
            Columns: \(CampaignMap.columns.joined(separator: ",")). The whole file is checked first: a malformed \
            row, a period whose valid_to is before its valid_from, or two overlapping periods of one number are \
            refused naming the line, the field and the value, and nothing is stored. Then, in one transaction, \
            every stored row of each network the file names is replaced by the file's rows; other networks keep \
            theirs. skan report --by campaign-name and the dashboard read the stored map (see \
            docs/guides/campaign-names.md).
            """
    )

    @Option(help: "The collector's SQLite database, or a postgres:// URL.")
    var db = "skan.sqlite"

    @Argument(help: "The campaign map CSV.")
    var file: String

    func run() async throws {
        let location = try StoreLocation(db)
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw CLIError("\(file): cannot read it\(FileManager.default.fileExists(atPath: file) ? " (not UTF-8 text, or a folder?)" : " (no such file)")")
        }
        let map: CampaignMap
        do {
            map = try CampaignMap(csv: text, source: file)
        } catch {
            throw CLIError(error.reason)
        }
        guard !map.entries.isEmpty else { throw CLIError("\(file): no rows; expected at least one mapping") }
        let imported = CampaignMapImport(map, source: file, importedAt: Date())
        let outcome = try await location.withCampaignMapStore { store in
            try await store.migrate()
            return try await store.replace(imported)
        }
        print("imported \(outcome.added) rows from \(file) into \(location.display): "
              + "\(imported.networks.joined(separator: ", ")) (replaced \(outcome.removed))")
    }
}

/// `skan campaigns list`: the stored map, as a file `import` reads back.
struct CampaignsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the stored campaign map (as CSV that skan campaigns import reads back), or its imports.",
        discussion: "Rows by network, campaign ids before source identifiers, then by period."
    )

    @Option(help: "The collector's SQLite database, or a postgres:// URL.")
    var db = "skan.sqlite"

    @Option(help: "Output format: csv, table or json.")
    var format: String = OutputFormat.csv.rawValue

    @Flag(help: "List the imports (when, from which file, which networks, how many rows) instead of the rows.")
    var imports = false

    func run() async throws {
        guard let outputFormat = OutputFormat(rawValue: format) else {
            throw CLIError("--format must be csv, table or json, got \"\(format)\"")
        }
        let location = try StoreLocation(db)
        if location.isFile, !FileManager.default.fileExists(atPath: db) {
            throw CLIError("--db: no database at \(db)")
        }
        let imports = imports
        let (header, rows) = try await location.withCampaignMapStore { store -> ([String], [[String]]) in
            if imports {
                return (["imported_at", "source", "networks", "rows"],
                        try await store.imports().map { [$0.importedAt, $0.source, $0.networks, String($0.rows)] })
            }
            return (CampaignMap.columns, try await store.entries().map { entry in
                CampaignMapTable.cells(entry).dropLast().map { $0 ?? "" }
            })
        }
        let stream = try BufferedOutput.to(nil, protecting: [])
        defer { stream.close() }
        try TableWriter(format: outputFormat, stream: stream).write(header: header, rows: rows)
        try stream.commit()
    }
}
