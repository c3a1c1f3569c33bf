import Foundation
import SKANCore

/// Reads a campaign file and the keys it names, turning every failure into a ``SimulatorError`` that names the
/// file, the JSON path (`$.ads[2].kind`) and what was expected.
public enum CampaignFile {
    /// Decodes a campaign from JSON bytes; `source` names it in errors.
    public static func decode(_ data: Data, source: String) throws(SimulatorError) -> Campaign {
        do {
            var campaign = try JSONDecoder().decode(Campaign.self, from: data)
            campaign.identity = TransactionIDKey.fingerprint(data)
            return campaign
        } catch let error as DecodingError {
            throw SimulatorError(.invalidCampaign, "\(source): \(describe(error))")
        } catch {
            throw SimulatorError(.invalidCampaign, "\(source): \(error)")
        }
    }

    /// Reads and decodes a campaign file, and loads its keys (paths relative to the file).
    public static func load(path: String) throws(SimulatorError) -> CampaignSetup {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = FileCheck.problem(reading: path) ?? (error as NSError).localizedDescription
            throw SimulatorError(.invalidCampaign, "cannot read campaign file \(path): \(reason)")
        }
        let campaign = try decode(data, source: path)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        return try CampaignSetup(campaign: campaign) { (relative: String) throws(SimulatorError) -> String in
            let url = relative.hasPrefix("/") ? URL(fileURLWithPath: relative) : folder.appendingPathComponent(relative)
            do {
                return try String(contentsOf: url, encoding: .utf8)
            } catch {
                throw SimulatorError(.invalidKey, "\(path): cannot read key file \(url.standardizedFileURL.path)")
            }
        }
    }

    /// `$.ads[2].kind: expected one of …, got "banner"`.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing; this field is required"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(describe(type)), \(found(context))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(describe(type)), got null"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return "not valid JSON (\(context.underlyingError.map { ($0 as NSError).userInfo["NSDebugDescription"] as? String ?? "\($0)" } ?? context.debugDescription))"
            }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        var text = "$"
        for key in keys {
            if let index = key.intValue { text += "[\(index)]" } else { text += ".\(key.stringValue)" }
        }
        return text
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        default:
            "\(type)".hasPrefix("Array") ? "an array" : "an object"
        }
    }

    private static func found(_ context: DecodingError.Context) -> String {
        // Foundation puts what it found in the description ("... but found a string instead.").
        if let range = context.debugDescription.range(of: "found ") {
            return "got " + context.debugDescription[range.upperBound...].replacingOccurrences(of: " instead.", with: "")
        }
        return context.debugDescription
    }
}

/// The developer copy of a winning postback (iOS 15+, spec §7; AdAttributionKit at its own well-known path).
public enum DeveloperCopy {
    /// The URL a device posts the copy to, from the app's `NSAdvertisingAttributionReportEndpoint`: the
    /// registrable domain (approximated here as the last two labels of the host) with the framework's
    /// well-known path.
    public static func url(forEndpoint endpoint: String, framework: Framework = .skadnetwork) -> String? {
        guard let url = URL(string: endpoint), url.scheme == "https", let host = url.host, host.contains(".") else { return nil }
        let labels = host.split(separator: ".")
        let path = switch framework {
        case .skadnetwork: "/.well-known/skadnetwork/report-attribution/"
        case .adAttributionKit: "/.well-known/appattribution/report-attribution/"
        }
        return "https://\(labels.suffix(2).joined(separator: "."))\(path)"
    }
}
