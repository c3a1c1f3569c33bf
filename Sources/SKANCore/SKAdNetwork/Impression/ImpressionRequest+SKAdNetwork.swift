import Foundation

/// SKAdNetwork's reading of an ``ImpressionRequest``.
extension ImpressionRequest {
    /// The names an SKAdNetwork request may carry, as `skan sign` spells its long options and CSV columns.
    public static let fieldNames = ["version", "ad-network-id", "campaign-id", "source-identifier", "itunes-item-id",
                                    "source-app-id", "source-domain", "fidelity-type", "nonce", "timestamp"]

    /// The SKAdNetwork impression these values describe, or an error naming the field (prefixed with `origin`: `--` for
    /// options, nothing for CSV columns, a JSON path for a service), the value and what was expected.
    ///
    /// Defaults: `fidelity-type` 1, a new `nonce` from `makeNonce`, `timestamp` the milliseconds of `now()`; the
    /// ad kind is web when `source-domain` is given, else view-through for fidelity 0, else StoreKit-rendered.
    /// Whether the fields fit the version (ranges, which ids go with which version) is the signer's check,
    /// ``Impression/validate()``.
    public func impression(origin: String = "", now: () -> Date = Date.init,
                           makeNonce: () -> UUID = UUID.random) throws(SKANError) -> Impression {
        let named = NamedValues(values: values, origin: origin)
        let versionText = try named.required("version")
        guard let version = ImpressionVersion(rawValue: versionText) else {
            throw SKANError(.invalidImpression, "\(origin)version must be one of \(ImpressionVersion.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(versionText)\"")
        }
        let fidelity = try named.integer("fidelity-type") ?? 1
        guard fidelity == 0 || fidelity == 1 else {
            throw SKANError(.invalidImpression, "\(origin)fidelity-type must be 0 (view-through) or 1 (StoreKit-rendered), got \(fidelity)")
        }
        let kind: AdKind = values["source-domain"] != nil ? .web : (fidelity == 0 ? .viewThrough : .storeKitRendered)
        if kind == .web && fidelity == 0 {
            throw SKANError(.invalidImpression, "\(origin)fidelity-type of a web ad is 1, got 0")
        }
        var nonce: UUID
        if let text = values["nonce"] {
            guard let parsed = UUID(uuidString: text) else {
                throw SKANError(.invalidImpression, "\(origin)nonce must be a UUID, got \"\(text)\"")
            }
            nonce = parsed
        } else {
            nonce = makeNonce()
        }
        let itunesItemID = try named.requiredInteger("itunes-item-id")
        let timestamp = try named.integer("timestamp").map(Int64.init) ?? Int64(now().timeIntervalSince1970 * 1000)
        return Impression(
            version: version, kind: kind, adNetworkID: try named.required("ad-network-id"),
            campaignID: try named.integer("campaign-id"), sourceIdentifier: try named.integer("source-identifier"),
            itunesItemID: itunesItemID, nonce: nonce, sourceAppID: try named.integer("source-app-id"),
            sourceDomain: values["source-domain"], timestamp: timestamp)
    }
}
