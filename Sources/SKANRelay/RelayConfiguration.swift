import Foundation
import SKANCore

/// The destinations a collector relays postbacks to, read from a JSON file (`skan serve --relay FILE`). Every
/// collector of a fleet reads the same file: the outbox names destinations, so they must agree on them.
///
/// ```json
/// {
///   "destinations": [{
///     "name": "partner", "url": "https://partner.example/skan",
///     "frameworks": ["skadnetwork"], "copies": ["winning", "developer"],
///     "body": "json", "add": ["received-at", "ip-address"],
///     "headers": {"Authorization": {"file": "partner.token"}},
///     "signature": {"header": "X-Signature", "secret-file": "partner.key"}
///   }]
/// }
/// ```
public struct RelayConfiguration: Sendable, Hashable {
    /// Where postbacks go.
    public var destinations: [RelayDestination]

    /// Makes a configuration; ``validate()`` checks it. Which `X-Forwarded-For` to believe for `ip-address` is the
    /// collector's listener's business (its trusted proxies), not the relay's: the relay adds the address it is given.
    public init(destinations: [RelayDestination]) {
        self.destinations = destinations
    }

    /// Refuses what cannot work, naming the destination and the field.
    public func validate() throws(RelayError) {
        var names: Set<String> = []
        for (index, destination) in destinations.enumerated() {
            let name = destination.name
            func fail(_ field: String, _ problem: String) -> RelayError {
                RelayError(.invalidConfiguration, "destination \(name.isEmpty ? "#\(index + 1)" : "'\(name)'"): \(field): \(problem)")
            }
            if name.isEmpty || name.contains(where: { !($0.isLetter || $0.isNumber || "-_.".contains($0)) }) {
                throw fail("name", "expected letters, digits, '-', '_' or '.', got \"\(name)\"")
            }
            if !names.insert(name).inserted { throw fail("name", "used by another destination") }
            let scheme = destination.url.scheme?.lowercased()
            if scheme != "http" && scheme != "https" || (destination.url.host ?? "").isEmpty {
                throw fail("url", "expected an http:// or https:// URL with a host, got \"\(destination.url.absoluteString)\"")
            }
            if destination.inFlight < 1 || destination.inFlight > 256 {
                throw fail("in-flight", "expected 1 to 256, got \(destination.inFlight)")
            }
            if destination.timeout <= .zero { throw fail("timeout-seconds", "expected a positive number, got \(destination.timeout)") }
            if destination.maximumAge <= .zero { throw fail("max-age-hours", "expected a positive number, got \(destination.maximumAge)") }
            if destination.lease <= destination.timeout * 2 {
                throw fail("lease-seconds", "expected more than two timeouts (\(destination.timeout * 2)), got \(destination.lease)")
            }
            if destination.deadAfter < 1 { throw fail("dead-after", "expected at least 1, got \(destination.deadAfter)") }
            for header in destination.headers where !Self.isToken(header.name) {
                throw fail("headers", "\"\(header.name)\" is not a header name")
            }
            for header in destination.headers where header.value.contains(where: { $0 == "\r" || $0 == "\n" }) {
                throw fail("headers.\(header.name)", "the value has a line break")
            }
            if let signature = destination.signature {
                if !Self.isToken(signature.header) { throw fail("signature.header", "\"\(signature.header)\" is not a header name") }
                if signature.secret.isEmpty { throw fail("signature.secret-file", "the file is empty") }
            }
        }
    }

    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
