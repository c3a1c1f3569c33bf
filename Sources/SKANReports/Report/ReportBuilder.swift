import Foundation
import SKANCore
import SKANStore

/// Builds reports from what the collector stored, through the store's read side: a ``PostbackReader`` of whichever
/// engine, opened by the caller (the command line looks the engine up), so reports name no engine.
///
/// The grouping and counting run inside the engine as one aggregate query, so a report costs what the same query
/// costs in the engine's shell; Swift only decodes values through the schema and formats the rows.
public enum ReportBuilder {
    /// Runs a report and keeps every row (for small reports, tables and tests).
    public static func run(_ request: ReportRequest, on reader: any PostbackReader) async throws(ReportError) -> Report {
        var rows: [ReportRow] = []
        try await stream(request, on: reader) { rows.append($0) }
        return Report(request: request, rows: rows, eventNames: request.schema?.eventNames ?? [])
    }

    /// Runs a report and hands over each row as the store produces it, in key order, so that memory stays flat
    /// however many groups there are.
    public static func stream(_ request: ReportRequest, on reader: any PostbackReader,
                              each: (ReportRow) throws -> Void) async throws(ReportError) {
        var pending: ReportRow?
        var naming = request.namesCampaigns ? request.campaigns.map { CampaignNaming(request: request, map: $0) } : nil
        let decoding = SchemaDecoding(request)
        do {
            try await reader.aggregate(request.aggregate) { group in
                var counts = Self.counts(group, decoding: decoding)
                if naming != nil {
                    naming?.add(counts)
                    return
                }
                // Groups split further for the schema (by app, window or install day) fold back into the row.
                counts.keys = decoding.rowKeys(counts.keys)
                if request.schema == nil {
                    try each(counts)
                } else if let last = pending, last.keys == counts.keys {
                    // With a schema the query also splits groups by value; rows of one group are adjacent
                    // (ordered by the keys), so they fold back into one as they come.
                    pending = Self.merge(last, counts)
                } else {
                    if let last = pending { try each(last) }
                    pending = counts
                }
            }
            if let last = pending { try each(last) }
            for row in naming?.finish() ?? [] { try each(row) }
        } catch let error as ReportError {
            throw error
        } catch let error as StoreError {
            throw ReportError(.database, error.reason)
        } catch {
            throw ReportError(.output, "the report could not be written: \(error)")
        }
    }

    /// A group's counts, and with a schema the events and revenue its value stands for, decoded by the table in
    /// force for its app, window and install day where the schema has several.
    static func counts(_ group: AggregateRow, decoding: SchemaDecoding) -> ReportRow {
        var counts = ReportRow(keys: group.keys)
        counts.postbacks = group.postbacks
        counts.installs = group.installs
        counts.redownloads = group.redownloads
        counts.reengagements = group.reengagements
        counts.nonWinning = group.nonWinning
        counts.nullValues = group.nullValues
        guard let schema = decoding.schema else { return counts }
        let coarse = group.coarseValue.flatMap(CoarseValue.init(rawValue:))
        for event in schema.events(conversionValue: group.conversionValue, coarseValue: coarse,
                                   app: decoding.app(group.keys), window: decoding.window(group.keys),
                                   installDay: decoding.installDay(group.keys)) {
            counts.events[event.name, default: 0] += event.count * counts.postbacks
            counts.revenueLow += event.revenueLow * Double(counts.postbacks)
            counts.revenueHigh += event.revenueHigh * Double(counts.postbacks)
        }
        return counts
    }

    static func merge(_ a: ReportRow, _ b: ReportRow) -> ReportRow {
        var merged = a
        merged.add(b)
        return merged
    }
}
