import CSV
import SKANCore

extension CampaignMap {
    /// The columns of a campaign map file, in the order SKANKit writes them.
    ///
    /// ```
    /// ad_network_id,source_identifier,campaign_id,valid_from,valid_to,campaign,ad_set,creative,country
    /// example123.skadnetwork,39,,,,Spring sale,,,
    /// example123.skadnetwork,239,,,,Spring sale,Lapsed players,,
    /// example123.skadnetwork,5239,,2026-03-01,2026-05-31,Spring sale,Lapsed players,Video 15s,US
    /// example123.skadnetwork,,12,,,Old install campaign,,,
    /// ```
    ///
    /// A row names one number: a `source_identifier` of 2–4 digits (4.0, AdAttributionKit) or a `campaign_id` 1–100
    /// (before 4.0), never both. `valid_from` and `valid_to` (inclusive, `YYYY-MM-DD`) may be empty for an open end.
    public static let columns = ["ad_network_id", "source_identifier", "campaign_id", "valid_from", "valid_to",
                                 "campaign", "ad_set", "creative", "country"]

    /// Reads a campaign map from CSV text, refusing the first malformed row or overlapping period with its line.
    /// `source` names the file in errors.
    public init(csv text: String, source: String, digits: SourceIdentifierDigits = .trailing) throws(CampaignMapError) {
        func fail(_ line: Int?, _ reason: String) -> CampaignMapError {
            CampaignMapError(.malformed, "\(source)\(line.map { ":\($0)" } ?? ""): \(reason)")
        }
        let reader: CSVReader
        do {
            reader = try CSVReader(string: text, hasHeaderRow: true, trimFields: true)
        } catch {
            throw fail(nil, "not CSV with a header row (\(error))")
        }
        let header = reader.headerRow ?? []
        for required in ["ad_network_id", "campaign"] where !header.contains(required) {
            throw fail(1, "the header has no \(required) column; expected \(Self.columns.joined(separator: ","))")
        }
        guard header.contains("source_identifier") || header.contains("campaign_id") else {
            throw fail(1, "the header needs a source_identifier or a campaign_id column")
        }
        if let unknown = header.first(where: { !Self.columns.contains($0) }) {
            throw fail(1, "unknown column \"\(unknown)\"; expected \(Self.columns.joined(separator: ","))")
        }
        var entries: [Entry] = []
        var line = 1
        while let row = reader.next() {
            line += 1
            let cells = Dictionary(zip(header, row), uniquingKeysWith: { first, _ in first })
            func cell(_ name: String) -> String { cells[name] ?? "" }
            func optional(_ name: String) -> String? { cell(name).isEmpty ? nil : cell(name) }
            func day(_ name: String) throws(CampaignMapError) -> String? {
                guard let text = optional(name) else { return nil }
                do {
                    return try ReportRequest.checkDate(text, option: name)
                } catch {
                    throw fail(line, "\(name) must be a day YYYY-MM-DD, got \"\(text)\"")
                }
            }
            if row.allSatisfy(\.isEmpty) { continue }
            guard let network = optional("ad_network_id") else { throw fail(line, "ad_network_id is empty") }
            guard let campaign = optional("campaign") else { throw fail(line, "campaign is empty") }
            let number: Number
            switch (optional("source_identifier"), optional("campaign_id")) {
            case (let digits?, nil):
                guard (2...4).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                    throw fail(line, "source_identifier must be 2 to 4 digits, got \"\(digits)\"")
                }
                number = .sourceIdentifier(digits)
            case (nil, let id?):
                guard let value = Int(id), (1...100).contains(value) else {
                    throw fail(line, "campaign_id must be an integer 1...100, got \"\(id)\"")
                }
                number = .campaignID(value)
            case (nil, nil):
                throw fail(line, "give a source_identifier or a campaign_id")
            case (.some, .some):
                throw fail(line, "give a source_identifier or a campaign_id, not both")
            }
            let from = try day("valid_from"), to = try day("valid_to")
            // A period whose days run backwards is out of order; rows themselves may come in any order.
            if let from, let to, from > to {
                throw fail(line, "valid_to \(to) is before valid_from \(from); expected a day on or after valid_from")
            }
            entries.append(Entry(network: network, number: number, validFrom: from, validTo: to,
                                 names: Names(campaign: campaign, adSet: optional("ad_set"),
                                              creative: optional("creative"), country: optional("country")),
                                 origin: "\(source):\(line)"))
        }
        try self.init(entries: entries, digits: digits)
    }
}
