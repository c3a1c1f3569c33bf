import Foundation
import SKANCore

extension RelayConfiguration {
    /// Reads and checks the file at `path`; files it names (secrets) are relative to its folder. Every failure
    /// names the file, the destination and the field.
    public static func load(path: String) throws(RelayError) -> RelayConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = FileCheck.problem(reading: path) ?? "\(error.localizedDescription)"
            throw RelayError(.invalidConfiguration, "cannot read the relay configuration \(path): \(reason)")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            return try decode(data, folder: folder)
        } catch {
            throw RelayError(.invalidConfiguration, "\(path): \(error.reason)")
        }
    }

    /// Decodes and checks a configuration's JSON; `folder` is where relative file names lead.
    public static func decode(_ data: Data, folder: URL) throws(RelayError) -> RelayConfiguration {
        let file: FileShape
        do {
            file = try JSONDecoder().decode(FileShape.self, from: data)
        } catch let error as DecodingError {
            throw RelayError(.invalidConfiguration, describe(error))
        } catch {
            throw RelayError(.invalidConfiguration, "\(error)")
        }
        var destinations: [RelayDestination] = []
        for (index, shape) in file.destinations.enumerated() {
            destinations.append(try shape.destination(index: index, folder: folder))
        }
        if file.trustedProxies != nil {
            // Read once, by the listener, for every use of the address: a second list here could disagree with it.
            throw RelayError(.invalidConfiguration, "trusted-proxies: not read from the relay file; give the "
                + "collector's trusted proxies to skan serve (--trusted-proxy), which resolves the ip-address it adds")
        }
        let configuration = RelayConfiguration(destinations: destinations)
        try configuration.validate()
        return configuration
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return "$\(path(context.codingPath + [key])): missing; this field is required"
        case .typeMismatch(let type, let context): return "$\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context): return "$\(path(context.codingPath)): expected \(type), got null"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "$\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    /// The file as written.
    private struct FileShape: Decodable {
        var destinations: [DestinationShape]
        /// Refused: the listener's setting now (see ``decode(_:folder:)``).
        var trustedProxies: [String]?

        enum CodingKeys: String, CodingKey {
            case destinations
            case trustedProxies = "trusted-proxies"
        }
    }

    private enum HeaderValue: Decodable {
        case literal(String)
        case file(String)

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                self = .literal(text)
                return
            }
            let object = try decoder.container(keyedBy: FileKey.self)
            self = .file(try object.decode(String.self, forKey: .file))
        }

        enum FileKey: String, CodingKey { case file }
    }

    private struct SignatureShape: Decodable {
        var header: String
        var secretFile: String

        enum CodingKeys: String, CodingKey {
            case header
            case secretFile = "secret-file"
        }
    }

    private struct DestinationShape: Decodable {
        var name: String
        var url: String
        var frameworks: [String]?
        var adNetworkIDs: [String]?
        var appIDs: [Int]?
        var copies: [String]?
        var paths: [String]?
        var body: String?
        var add: [String]?
        var headers: [String: HeaderValue]?
        var signature: SignatureShape?
        var inFlight: Int?
        var timeoutSeconds: Double?
        var maxAgeHours: Double?
        var deadAfter: Int?
        var leaseSeconds: Double?

        enum CodingKeys: String, CodingKey {
            case name, url, frameworks, copies, paths, body, add, headers, signature
            case adNetworkIDs = "ad-network-ids"
            case appIDs = "app-ids"
            case inFlight = "in-flight"
            case timeoutSeconds = "timeout-seconds"
            case maxAgeHours = "max-age-hours"
            case deadAfter = "dead-after"
            case leaseSeconds = "lease-seconds"
        }

        func destination(index: Int, folder: URL) throws(RelayError) -> RelayDestination {
            func fail(_ field: String, _ problem: String) -> RelayError {
                RelayError(.invalidConfiguration, "destination \(name.isEmpty ? "#\(index + 1)" : "'\(name)'"): \(field): \(problem)")
            }
            func values<T: RawRepresentable & CaseIterable>(_ field: String, _ given: [String]?, as: T.Type)
                throws(RelayError) -> Set<T> where T.RawValue == String {
                var set: Set<T> = []
                for text in given ?? [] {
                    guard let value = T(rawValue: text) else {
                        throw fail(field, "expected one of \(T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), got \"\(text)\"")
                    }
                    set.insert(value)
                }
                return set
            }
            func read(_ field: String, _ file: String) throws(RelayError) -> String {
                let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : folder.appendingPathComponent(file)
                do {
                    let text = try String(contentsOf: url, encoding: .utf8)
                    // A secret file's first line, as the token files of the operator listeners.
                    return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
                        .trimmingCharacters(in: .whitespaces)
                } catch {
                    throw fail(field, "cannot read \(url.standardizedFileURL.path): \(FileCheck.problem(reading: url.path) ?? "unreadable")")
                }
            }
            guard let url = URL(string: url) else { throw fail("url", "expected a URL, got \"\(self.url)\"") }
            let frameworks = try values("frameworks", frameworks, as: Framework.self)
            let copies = try values("copies", copies, as: RelayCopy.self)
            for path in paths ?? [] where !path.hasPrefix("/") { throw fail("paths", "expected a path starting with '/', got \"\(path)\"") }
            let extras = try values("add", add, as: RelayExtra.self)
            let shape: RelayBody
            switch body ?? "received" {
            case "received":
                if !extras.isEmpty { throw fail("add", "members can only be added to \"body\": \"json\"") }
                shape = .received
            case "json": shape = .json(adding: RelayExtra.allCases.filter(extras.contains))
            case let other: throw fail("body", "expected \"received\" or \"json\", got \"\(other)\"")
            }
            var headers: [RelayHeader] = []
            for (header, value) in (self.headers ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let problem = RelayHeader.problem(name: header) { throw fail("headers", problem) }
                let text = switch value {
                case .literal(let text): text
                case .file(let file): try read("headers.\(header).file", file)
                }
                if let problem = RelayHeader.problem(value: text) { throw fail("headers.\(header)", problem) }
                headers.append(RelayHeader(name: header, value: text))
            }
            let signature = try self.signature.map { shape throws(RelayError) in
                if let problem = RelayHeader.problem(name: shape.header) { throw fail("signature.header", problem) }
                if headers.contains(where: { $0.name.lowercased() == shape.header.lowercased() }) {
                    throw fail("signature.header", "\"\(shape.header)\" is also in headers; expected one or the other")
                }
                return RelaySignature(header: shape.header, secret: Array(try read("signature.secret-file", shape.secretFile).utf8))
            }
            for (field, value) in [("timeout-seconds", timeoutSeconds), ("max-age-hours", maxAgeHours), ("lease-seconds", leaseSeconds)] {
                if let value, !(value > 0 && value.isFinite) { throw fail(field, "expected a positive number, got \(value)") }
            }
            return RelayDestination(
                name: name, url: url,
                filter: RelayFilter(frameworks: frameworks, adNetworkIDs: Set(adNetworkIDs ?? []), appIDs: Set(appIDs ?? []),
                                    copies: copies, paths: Set(paths ?? [])),
                body: shape, headers: headers, signature: signature, inFlight: inFlight ?? 8,
                timeout: .milliseconds(Int64((timeoutSeconds ?? 10) * 1000)),
                maximumAge: .seconds(Int64((maxAgeHours ?? 168) * 3600)), deadAfter: deadAfter ?? 3,
                lease: leaseSeconds.map { .milliseconds(Int64($0 * 1000)) })
        }
    }
}
