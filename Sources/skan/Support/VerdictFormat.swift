import ArgumentParser
import SKANReports
import Foundation
import SKANCore

/// How `skan verify` prints its results: one line, object or row per postback, in input order.
enum VerdictFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, csv

    static let csvHeader = ["input", "status", "version", "transaction-id", "ad-network-id", "layout", "key", "field", "reason"]

    /// Appends one verdict as a line of text or JSON to `out`. Called on worker threads, once per postback, so
    /// JSON is written as bytes into the chunk's buffer rather than built as strings.
    static func appendLine(_ verdict: PostbackVerdict, source: String, line: Int, as format: VerdictFormat,
                           to out: inout [UInt8]) {
        switch format {
        case .text, .csv:  // CSV rows are built by `row`, never here; `.csv` only keeps the switch whole
            var parts = ["\(source):\(line)", verdict.status.rawValue]
            if let version = verdict.version { parts.append("version=\(version)") }
            if let transactionID = verdict.transactionID { parts.append("transaction-id=\(transactionID)") }
            if case .valid(let verified) = verdict {
                parts.append("layout=\(verified.layout) key=\(verified.keyName)")
                if !verified.claimedFields.isEmpty {
                    parts.append("claimed=\(verified.claimedFields.map(\.key).joined(separator: ","))")
                }
            }
            if let reason = verdict.reason { parts.append("— \(reason)") }
            out += parts.joined(separator: " ").utf8
        case .json:
            JSONWriter.appendObject(to: &out) { writer in
                writer.value("input") { bytes in
                    bytes.append(UInt8(ascii: "\""))
                    JSONWriter.appendEscaped(source, to: &bytes)
                    bytes.append(UInt8(ascii: ":"))
                    JSONWriter.appendInteger(Int64(line), to: &bytes)
                    bytes.append(UInt8(ascii: "\""))
                }
                writer.string("status", verdict.status.rawValue)
                writer.string("version", verdict.version)
                writer.string("transaction-id", verdict.transactionID)
                writer.string("ad-network-id", verdict.postback?.adNetworkID)
                writer.string("reason", verdict.reason)
                writer.string("field", verdict.field)
                if case .valid(let verified) = verdict {
                    writer.string("layout", verified.layout.rawValue)
                    writer.string("key", verified.keyName)
                    writer.strings("signed-fields", verified.signedFields.lazy.map(\.key))
                    writer.strings("claimed-fields", verified.claimedFields.lazy.map(\.key))
                } else {
                    writer.raw("layout", "null")
                    writer.raw("key", "null")
                }
            }
        }
        out.append(UInt8(ascii: "\n"))
    }

    /// The CSV row for one verdict, in the order of ``csvHeader``.
    static func row(_ verdict: PostbackVerdict, at location: String) -> [String] {
        var layout = "", key = ""
        if case .valid(let verified) = verdict {
            layout = verified.layout.rawValue
            key = verified.keyName
        }
        return [location, verdict.status.rawValue, verdict.version ?? "", verdict.transactionID ?? "",
                verdict.postback?.adNetworkID ?? "", layout, key, verdict.field ?? "", verdict.reason ?? ""]
    }

    /// Rows as RFC 4180 CSV, through the same encoder as `skan report` and `skan export`.
    static func csv(_ rows: [[String]]) -> Data {
        Data(CSVEncoding.text(rows))
    }
}
