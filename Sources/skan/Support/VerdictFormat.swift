import ArgumentParser
import SKANReports
import Foundation
import SKANCore

/// How `skan verify` prints its results: one line, object or row per postback, in input order.
enum VerdictFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, csv

    /// `transaction-id` holds AdAttributionKit's postback identifier and `layout` its kid: the same slots.
    static let csvHeader = ["input", "status", "framework", "version", "transaction-id", "ad-network-id", "layout", "key",
                            "field", "reason"]

    /// Appends one verdict as a line of text or JSON to `out`. Called on worker threads, once per postback, so
    /// JSON is written as bytes into the chunk's buffer rather than built as strings.
    static func appendLine(_ verdict: AttributionVerdict, source: String, line: Int, as format: VerdictFormat,
                           to out: inout [UInt8]) {
        switch format {
        case .text, .csv:  // CSV rows are built by `row`, never here; `.csv` only keeps the switch whole
            var parts = ["\(source):\(line)", verdict.status.rawValue]
            let isAAK = verdict.framework == .adAttributionKit
            if isAAK { parts.append("framework=\(verdict.framework)") }
            if let version = verdict.version { parts.append("version=\(version)") }
            if let dedupID = verdict.dedupID { parts.append("\(isAAK ? "postback-identifier" : "transaction-id")=\(dedupID)") }
            if case .valid(let verified) = verdict {
                parts.append("\(isAAK ? "kid" : "layout")=\(verified.scheme) key=\(verified.keyName)")
                let claimed = switch verified.detail {
                case .skadnetwork(let postback): postback.claimedFields.map(\.key)
                case .adAttributionKit(let postback): postback.claimedFields
                }
                if !claimed.isEmpty { parts.append("claimed=\(claimed.joined(separator: ","))") }
            }
            if let reason = verdict.reason { parts.append("— \(reason)") }
            out += parts.joined(separator: " ").utf8
        case .json:
            appendJSON(verdict, source: source, line: line, to: &out)
        }
        out.append(UInt8(ascii: "\n"))
    }

    /// One verdict as a JSON object with the members in a fixed order. Written from literal fragments, because
    /// every key and most values are the same for every postback: only the values that vary are escaped.
    private static func appendJSON(_ verdict: AttributionVerdict, source: String, line: Int, to out: inout [UInt8]) {
        JSONWriter.appendLiteral(#"{"input":""#, to: &out)
        JSONWriter.appendEscaped(source, to: &out)
        out.append(UInt8(ascii: ":"))
        JSONWriter.appendInteger(Int64(line), to: &out)
        JSONWriter.appendLiteral(#"","status":""#, to: &out)
        JSONWriter.appendLiteral(statusWord(verdict), to: &out)
        let isAAK = verdict.framework == .adAttributionKit
        JSONWriter.appendLiteral(isAAK ? #"","framework":"adattributionkit","version":"# : #"","framework":"skadnetwork","version":"#,
                                 to: &out)
        appendString(verdict.version, to: &out)
        JSONWriter.appendLiteral(isAAK ? #","postback-identifier":"# : #","transaction-id":"#, to: &out)
        appendString(verdict.dedupID, to: &out)
        JSONWriter.appendLiteral(#","ad-network-id":"#, to: &out)
        appendString(verdict.network, to: &out)
        JSONWriter.appendLiteral(#","reason":"#, to: &out)
        appendString(verdict.reason, to: &out)
        JSONWriter.appendLiteral(#","field":"#, to: &out)
        appendString(verdict.field, to: &out)
        guard case .valid(let verified) = verdict else {
            JSONWriter.appendLiteral(isAAK ? #","kid":null,"key":null}"# : #","layout":null,"key":null}"#, to: &out)
            return
        }
        JSONWriter.appendLiteral(isAAK ? #","kid":"# : #","layout":"#, to: &out)
        JSONWriter.appendQuoted(verified.scheme, to: &out)
        JSONWriter.appendLiteral(#","key":"#, to: &out)
        JSONWriter.appendQuoted(verified.keyName, to: &out)
        switch verified.detail {
        case .skadnetwork(let postback):
            JSONWriter.appendLiteral(#","signed-fields":["#, to: &out)
            appendKeys(postback.signedFields, to: &out)
            JSONWriter.appendLiteral(#"],"claimed-fields":["#, to: &out)
            appendKeys(postback.claimedFields, to: &out)
        case .adAttributionKit(let postback):
            JSONWriter.appendLiteral(#","conversion-type":"#, to: &out)
            JSONWriter.appendQuoted(postback.postback.conversionType.rawValue, to: &out)
            JSONWriter.appendLiteral(#","signed-fields":["#, to: &out)
            appendQuotedList(postback.signedFields, to: &out)
            JSONWriter.appendLiteral(#"],"claimed-fields":["#, to: &out)
            appendQuotedList(postback.claimedFields, to: &out)
        }
        JSONWriter.appendLiteral("]}", to: &out)
    }

    private static func appendQuotedList(_ names: [String], to out: inout [UInt8]) {
        for (position, name) in names.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendQuoted(name, to: &out)
        }
    }

    private static func appendString(_ value: String?, to out: inout [UInt8]) {
        if let value { JSONWriter.appendQuoted(value, to: &out) } else { JSONWriter.appendLiteral("null", to: &out) }
    }

    private static func statusWord(_ verdict: AttributionVerdict) -> StaticString {
        switch verdict.status {
        case .valid: "valid"
        case .invalidSignature: "invalid-signature"
        case .malformed: "malformed"
        case .unsupportedVersion: "unsupported-version"
        }
    }

    /// Field keys as JSON string literals, quoted once (they are the same sixteen names on every line), in one
    /// buffer: an array per key cost a retain and a release per key written.
    private static let quotedKeys: (bytes: [UInt8], ranges: [Range<Int>]) = {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in PostbackField.allCases {
            let start = bytes.count
            JSONWriter.appendQuoted(field.key, to: &bytes)
            ranges.append(start..<bytes.count)
        }
        return (bytes, ranges)
    }()

    private static func appendKeys(_ fields: [PostbackField], to out: inout [UInt8]) {
        let (bytes, ranges) = quotedKeys
        bytes.withUnsafeBufferPointer { all in
            ranges.withUnsafeBufferPointer { ranges in
                for (position, field) in fields.enumerated() {
                    if position > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: all[ranges[field.ordinal]]))
                }
            }
        }
    }

    /// The CSV row for one verdict, in the order of ``csvHeader``; the postback's own values (version, ids, the
    /// field and the reason quoting it) neutralised as `text` says.
    static func row(_ verdict: AttributionVerdict, at location: String, text: CSVText) -> [String] {
        var layout = "", key = ""
        if case .valid(let verified) = verdict {
            layout = verified.scheme
            key = verified.keyName
        }
        let cell = { (value: String?) in text.cell(value ?? "") }
        return [location, verdict.status.rawValue, verdict.framework.rawValue, cell(verdict.version), cell(verdict.dedupID),
                cell(verdict.network), layout, key, cell(verdict.field), cell(verdict.reason)]
    }

    /// Rows as RFC 4180 CSV, through the same encoder as `skan report` and `skan export`.
    static func csv(_ rows: [[String]]) -> Data {
        Data(CSVEncoding.text(rows))
    }
}
