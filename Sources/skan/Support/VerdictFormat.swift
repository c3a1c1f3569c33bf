import ArgumentParser
import SKANReports
import Foundation
import SKANCore

/// How `skan verify` prints its results: one line, object or row per postback, in input order.
enum VerdictFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, csv

    static let csvHeader = ["input", "status", "version", "transaction-id", "ad-network-id", "layout", "key", "field", "reason"]

    /// One verdict as a line of text or JSON. Called on worker threads, so it only builds a string.
    static func line(_ verdict: PostbackVerdict, at location: String, as format: VerdictFormat) -> String {
        switch format {
        case .text:
            var parts = [location, verdict.status.rawValue]
            if let version = verdict.version { parts.append("version=\(version)") }
            if let transactionID = verdict.transactionID { parts.append("transaction-id=\(transactionID)") }
            if case .valid(let verified) = verdict {
                parts.append("layout=\(verified.layout) key=\(verified.keyName)")
                if !verified.claimedFields.isEmpty {
                    parts.append("claimed=\(verified.claimedFields.map(\.key).joined(separator: ","))")
                }
            }
            if let reason = verdict.reason { parts.append("— \(reason)") }
            return parts.joined(separator: " ")
        case .json, .csv:
            var writer = JSONWriter()
            writer.string("input", location)
            writer.string("status", verdict.status.rawValue)
            writer.string("version", verdict.version)
            writer.string("transaction-id", verdict.transactionID)
            writer.string("ad-network-id", verdict.postback?.adNetworkID)
            writer.string("reason", verdict.reason)
            writer.string("field", verdict.field)
            if case .valid(let verified) = verdict {
                writer.string("layout", verified.layout.rawValue)
                writer.string("key", verified.keyName)
                writer.strings("signed-fields", verified.signedFields.map(\.key))
                writer.strings("claimed-fields", verified.claimedFields.map(\.key))
            } else {
                writer.raw("layout", "null")
                writer.raw("key", "null")
            }
            return writer.json
        }
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
