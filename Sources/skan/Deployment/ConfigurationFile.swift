import Configuration
import Foundation
import SystemPackage

/// The JSON file `--config` names: `{"serve": {"port": 8080, "path": ["/a", "/b"]}, "signer": {...}}`, one object
/// per command whose members are its long options' names. Values are read through swift-configuration's
/// `FileProvider<JSONSnapshot>` (its dotted keys: `serve.port`); the keys and the JSON kind of each value are read
/// here as well, because a provider answers a key it is asked for and cannot list the ones it holds, and an
/// unknown key must be refused rather than ignored (a misspelt option that silently does nothing is the failure a
/// configuration file exists to avoid).
struct ConfigurationFile: Sendable {
    /// A value's JSON kind: swift-configuration reads `true` as 1 when asked for a number, so the kind decides.
    enum Kind: Sendable, Equatable { case string, number, bool, array }

    let path: String
    /// Every leaf's dotted key and kind.
    let leaves: [String: Kind]
    let reader: ConfigReader

    /// Reads and parses the file; a missing or unreadable file, bad JSON, a top level that is not an object or a
    /// `null` is one line naming the file.
    static func load(_ path: String) async throws(CLIError) -> ConfigurationFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError("--config: cannot read \(path)")
        }
        let tree: JSONTree
        do {
            tree = try JSONDecoder().decode(JSONTree.self, from: data)
        } catch {
            throw CLIError("--config \(path): not valid JSON (\(Self.describe(error)))")
        }
        guard case .object = tree else {
            throw CLIError("--config \(path): expected a JSON object of commands ({\"serve\": {\"port\": 8080}})")
        }
        var leaves: [String: Kind] = [:]
        try tree.collect(prefix: nil, into: &leaves, path: path)
        do {
            let provider = try await FileProvider<JSONSnapshot>(filePath: FilePath(path))
            return ConfigurationFile(path: path, leaves: leaves, reader: ConfigReader(provider: provider))
        } catch {
            throw CLIError("--config \(path): \(error)")
        }
    }

    /// The value at `key` as command-line text: one string, or several for an array.
    func values(at key: String, for option: DeclaredOption) throws(CLIError) -> [String]? {
        guard let kind = leaves[key] else { return nil }
        let configKey = ConfigKey(key)
        let place = "\(key) in \(path)"
        switch (option.kind, kind) {
        case (.flag, .bool):
            return reader.bool(forKey: configKey).map { [String($0)] }
        case (.flag, _):
            throw CLIError("\(place): expected true or false")
        case (.option, .array):
            guard option.isRepeating else {
                throw CLIError("\(place): --\(option.name) takes one value, got an array")
            }
            if let strings = reader.stringArray(forKey: configKey) { return strings }
            if let ints = reader.intArray(forKey: configKey) { return ints.map(String.init) }
            if let doubles = reader.doubleArray(forKey: configKey) { return doubles.map { "\($0)" } }
            throw CLIError("\(place): expected an array of strings or of numbers")
        case (.option, .string):
            return reader.string(forKey: configKey).map { [$0] }
        case (.option, .number):
            if let int = reader.int(forKey: configKey) { return [String(int)] }
            return reader.double(forKey: configKey).map { ["\($0)"] }
        case (.option, .bool):
            return reader.bool(forKey: configKey).map { [String($0)] }
        }
    }

    /// Whether group or others may read the file: a file holding a secret must not be (as the token files).
    var isReadableByOthers: Bool {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber
        else { return false }
        return mode.intValue & 0o077 != 0
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? DecodingError {
            switch error {
            case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
                 .keyNotFound(_, let context):
                let at = context.codingPath.map(\.stringValue).joined(separator: ".")
                return at.isEmpty ? context.debugDescription : "at \(at): \(context.debugDescription)"
            @unknown default: break
            }
        }
        return "\(error)"
    }
}

/// A JSON document as far as the file needs it, with booleans told apart from numbers.
private indirect enum JSONTree: Decodable {
    case string(String), number(Double), bool(Bool), null, array([JSONTree]), object([String: JSONTree])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONTree].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONTree].self)) }
    }

    /// Every leaf under `prefix`, by dotted key.
    func collect(prefix: String?, into leaves: inout [String: ConfigurationFile.Kind], path: String) throws(CLIError) {
        let key = prefix ?? ""
        switch self {
        case .object(let members):
            for (name, value) in members {
                try value.collect(prefix: prefix.map { "\($0).\(name)" } ?? name, into: &leaves, path: path)
            }
        case .string: leaves[key] = .string
        case .number: leaves[key] = .number
        case .bool: leaves[key] = .bool
        case .array(let items):
            for item in items {
                switch item {
                case .string, .number: continue
                default: throw CLIError("\(key) in \(path): an array holds strings or numbers only")
                }
            }
            leaves[key] = .array
        case .null:
            throw CLIError("\(key) in \(path): null is not a value; leave the key out for the default")
        }
    }
}
