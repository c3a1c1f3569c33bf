import Foundation

/// An impression as a front end receives it: the framework it is for and named text values (`skan sign`'s options,
/// a CSV row's cells, the members of a signing service's request), turned into an ``AttributionImpression`` by one
/// set of rules, so that every front end accepts and refuses alike, with the same messages.
///
/// The framework is chosen once, here, by the caller (`--framework`, a request's `"framework"`); below it each
/// framework reads its own fields (``impression(origin:now:makeNonce:)`` for SKAdNetwork,
/// ``AAKImpression/init(values:origin:now:makeNonce:)`` for AdAttributionKit).
public struct ImpressionRequest: Sendable, Hashable {
    /// Which framework signs the impression.
    public var framework: Framework
    /// The values by name; a missing name takes its default (or is required).
    public var values: [String: String]
    /// The JSON shape a signed SKAdNetwork impression is written in; `nil` for the one its ad kind implies.
    public var format: ImpressionFormat?

    /// A request of `values` for `framework`.
    public init(framework: Framework = .skadnetwork, values: [String: String], format: ImpressionFormat? = nil) {
        self.framework = framework
        self.values = values
        self.format = format
    }

    /// A request whose values may name their framework and shape themselves, as a signing service's members do:
    /// `framework` (``Framework/init(name:)``), `format` (storekit, skadimpression or web). `"format": "aak"`, the
    /// service's first spelling of an AdAttributionKit request, is still read as `"framework": "adattributionkit"`.
    public init(named values: [String: String], origin: String = "") throws(SKANError) {
        var values = values
        var framework: Framework?
        if let name = values.removeValue(forKey: "framework") {
            guard let named = Framework(name: name) else {
                throw SKANError(.invalidImpression, "\(origin)framework must be \(Framework.allCases.map(\.rawValue).joined(separator: " or ")), got \(JSONWriter.quoted(Excerpt.of(name, maximumBytes: 40)))")
            }
            framework = named
        }
        var format: ImpressionFormat?
        if let shape = values.removeValue(forKey: "format") {
            if shape == "aak" {
                // Accepted for one release after "framework" arrived; docs/cli/signer.md says so.
                if framework == .skadnetwork {
                    throw SKANError(.invalidImpression, "\(origin)format \"aak\" is an AdAttributionKit impression, and framework says skadnetwork")
                }
                framework = .adAttributionKit
            } else {
                guard let known = ImpressionFormat(rawValue: shape) else {
                    throw SKANError(.invalidImpression, "\(origin)format must be \(ImpressionFormat.allCases.map(\.rawValue).joined(separator: ", ")), got \(JSONWriter.quoted(Excerpt.of(shape, maximumBytes: 40)))")
                }
                format = known
            }
        }
        self.init(framework: framework ?? .skadnetwork, values: values, format: format)
    }

    /// The names a request for `framework` may carry, as `skan sign` spells its long options and CSV columns.
    public static func fieldNames(of framework: Framework) -> [String] {
        switch framework {
        case .skadnetwork: fieldNames
        case .adAttributionKit: AAKImpression.fieldNames
        }
    }

    private static let knownNames = Dictionary(uniqueKeysWithValues: Framework.allCases.map { ($0, Set(fieldNames(of: $0))) })

    /// The impression these values describe in the request's framework, not yet checked against its rules
    /// (``AttributionImpression/validate()``, which signing does first), or an error naming the field (after
    /// `origin`: `--` for options, nothing for CSV columns and a service's members), the value and what was
    /// expected. A name the framework does not take is refused, saying which framework it belongs to.
    public func attributionImpression(origin: String = "", now: () -> Date = Date.init,
                                      makeNonce: () -> UUID = UUID.random) throws(SKANError) -> AttributionImpression {
        let known = Self.knownNames[framework] ?? []
        if !values.keys.allSatisfy(known.contains) {
            throw unknownField(values.keys.sorted().first { !known.contains($0) }!, origin: origin)
        }
        switch framework {
        case .skadnetwork:
            return .skadnetwork(try impression(origin: origin, now: now, makeNonce: makeNonce), format: format)
        case .adAttributionKit:
            if format != nil {
                throw SKANError(.invalidImpression, "\(origin)format is for SKAdNetwork impressions; an AdAttributionKit impression is a compact JWS")
            }
            return .adAttributionKit(try AAKImpression(values: values, origin: origin, now: now, makeNonce: makeNonce))
        }
    }

    private func unknownField(_ name: String, origin: String) -> SKANError {
        let names = Self.fieldNames(of: framework).map { origin + $0 }.joined(separator: ", ")
        if let other = Framework.allCases.first(where: { $0 != framework && Self.knownNames[$0]?.contains(name) == true }) {
            return SKANError(.invalidImpression, "\(origin)\(name) is for \(other.title) impressions; an \(framework.title) impression takes \(names)")
        }
        return SKANError(.invalidImpression, "\(origin)\(Excerpt.of(name, maximumBytes: 40)) is not a field of an \(framework.title) impression; fields are \(names)")
    }
}
