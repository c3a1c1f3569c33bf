/// How an ad was shown, which decides its `fidelity-type` and which fields it signs.
public enum AdKind: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Shown through `SKStoreProductViewController` or `SKOverlay` after a tap: fidelity 1.
    case storeKitRendered = "storekit-rendered"
    /// Shown for at least two or three seconds without a tap (`SKAdImpression`, 2.2+): fidelity 0.
    case viewThrough = "view-through"
    /// A Safari web ad (SKAdNetwork for Web Ads, 4.0): fidelity 1, `source-domain` in place of the source app.
    case web

    /// The signed `fidelity-type`.
    public var fidelityType: Int { self == .viewThrough ? 0 : 1 }

    public var description: String { rawValue }
}
