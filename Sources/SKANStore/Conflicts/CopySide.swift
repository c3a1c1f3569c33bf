/// Who a postback was sent to, as its arrival tells: the advertiser's developer copy (iOS 15+, Apple's
/// `report-attribution` well-known paths, spec §7), or the ad network's postback (any other path). A copy and the
/// network's postback of one install share the dedup key, so the second to arrive is a repeat of the first; which
/// side each came from is what reconciles them.
public enum CopySide: String, Sendable, Hashable, CaseIterable {
    /// The advertiser's copy, posted by the device to the app's own domain.
    case developer
    /// The network's postback, or a network's relay of it.
    case network

    /// The suffix of an endpoint that names a developer copy loaded from a file (`skan ingest` of an envelope whose
    /// `recipient` is `developer`): a file has no path to tell it by.
    public static let ingestedDeveloperSuffix = "#developer-copy"

    /// The side of a postback that arrived at `endpoint` (an HTTP path, or `ingest:FILE`): developer when the path
    /// is one of Apple's `…/report-attribution/` paths (SKAdNetwork's and AdAttributionKit's) or an ingested
    /// developer copy, else network.
    public init(endpoint: String) {
        let isDeveloper = endpoint.hasSuffix(Self.ingestedDeveloperSuffix)
            || endpoint.hasSuffix("/report-attribution/") || endpoint.hasSuffix("/report-attribution")
        self = isDeveloper ? .developer : .network
    }
}
