import SKANCore

/// How devices meet the campaign: exposure, installs and launches.
public struct Audience: Sendable, Decodable {
    /// How many ads of the campaign one device sees, drawn uniformly.
    public var impressionsPerDevice: ClosedRange<Int> = 1...3
    /// Hours from seeing an ad to installing, when the person installs because of it.
    public var installDelayHours: ClosedRange<Double> = 0...48
    /// Hours from install to first launch.
    public var launchDelayHours: ClosedRange<Double> = 0...6
    /// The share of installs that come from the App Store (the rest, TestFlight or enterprise builds, are never attributed).
    public var appStoreRate: Double = 1
    /// The share of installs whose Apple Account installed the app before.
    public var redownloadRate: Double = 0.1
    /// The chance that a device that did not install because of an ad installs anyway during the flight.
    public var organicInstallRate: Double = 0
    /// The share of devices that already have the app when the flight starts: they cannot install it, but an
    /// AdAttributionKit ad eligible for re-engagement can bring them back. Default 0.
    public var installedRate: Double = 0
    /// The App Store account's country, drawn per device by share (`country-code` of top-tier AdAttributionKit
    /// postbacks). Default `{"US": 1}`.
    public var countries: [(code: String, share: Double)] = [("US", 1)]
    /// `marketplace-identifier` of top-tier AdAttributionKit postbacks. Default `com.apple.AppStore`.
    public var marketplace = "com.apple.AppStore"
    /// How long a view-through ad stays on screen, seconds, drawn uniformly; views under 2 s never count. Absent
    /// (the default): every view lasts long enough.
    public var viewSeconds: ClosedRange<Double>?

    enum CodingKeys: String, CodingKey {
        case impressionsPerDevice = "impressions-per-device", installDelayHours = "install-delay-hours"
        case launchDelayHours = "launch-delay-hours", appStoreRate = "app-store-rate"
        case redownloadRate = "redownload-rate", organicInstallRate = "organic-install-rate"
        case installedRate = "installed-rate", countries, marketplace, viewSeconds = "view-seconds"
    }

    init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if c.contains(.impressionsPerDevice) {
            let range = try c.decodeRange(Double.self, forKey: .impressionsPerDevice, within: 0...100)
            impressionsPerDevice = Int(range.lowerBound)...Int(range.upperBound)
        }
        if c.contains(.installDelayHours) { installDelayHours = try c.decodeRange(Double.self, forKey: .installDelayHours, within: 0...24 * 120) }
        if c.contains(.launchDelayHours) { launchDelayHours = try c.decodeRange(Double.self, forKey: .launchDelayHours, within: 0...24 * 120) }
        appStoreRate = try c.decodeRate(forKey: .appStoreRate, in: 0...1, default: 1)
        redownloadRate = try c.decodeRate(forKey: .redownloadRate, in: 0...1, default: 0.1)
        organicInstallRate = try c.decodeRate(forKey: .organicInstallRate, in: 0...1, default: 0)
        installedRate = try c.decodeRate(forKey: .installedRate, in: 0...1, default: 0)
        if c.contains(.viewSeconds) { viewSeconds = try c.decodeRange(Double.self, forKey: .viewSeconds, within: 0...3600) }
        marketplace = try c.decodeIfPresent(String.self, forKey: .marketplace) ?? marketplace
        if marketplace.isEmpty { throw c.invalid(.marketplace, "a marketplace id such as \"com.apple.AppStore\"") }
        if c.contains(.countries) {
            let mix = try c.decode([String: Double].self, forKey: .countries)
            for (code, share) in mix {
                guard code.utf8.count == 2, code.utf8.allSatisfy({ (65...90).contains($0) }) else {
                    throw c.invalid(.countries, "two-letter upper-case country codes such as \"US\", got \"\(code)\"")
                }
                guard share >= 0 else { throw c.invalid(.countries, "shares of 0 or more, got \(share) for \(code)") }
            }
            // Sorted by code: a dictionary's order is not stable, and the draw must be.
            countries = mix.sorted { $0.key < $1.key }.map { (code: $0.key, share: $0.value) }
            if countries.reduce(0, { $0 + $1.share }) <= 0 { throw c.invalid(.countries, "at least one country with a share above 0") }
        }
    }
}
