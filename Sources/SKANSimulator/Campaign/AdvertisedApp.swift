/// The advertised app.
public struct AdvertisedApp: Sendable, Decodable {
    /// Its App Store id (`app-id` in postbacks).
    public var appID: Int
    /// `NSAdvertisingAttributionReportEndpoint`, when the developer wants copies of winning postbacks.
    public var reportEndpoint: String?
    /// The Info.plist keys AdAttributionKit reads (windows, cooldowns, re-engagement copies, overlapping
    /// conversions); all default as on a device without them.
    public var infoPlist = AdvertisedAppInfoPlist()

    enum CodingKeys: String, CodingKey {
        case appID = "app-id", reportEndpoint = "report-endpoint", infoPlist = "info-plist"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appID = try c.decodeInteger(forKey: .appID, in: 1...Int(Int32.max), default: nil)
        infoPlist = try c.decodeIfPresent(AdvertisedAppInfoPlist.self, forKey: .infoPlist) ?? AdvertisedAppInfoPlist()
        reportEndpoint = try c.decodeIfPresent(String.self, forKey: .reportEndpoint)
        if let endpoint = reportEndpoint, DeveloperCopy.url(forEndpoint: endpoint) == nil {
            throw c.invalid(.reportEndpoint, "an https:// URL such as \"https://example.com\", got \"\(endpoint)\"")
        }
    }
}
