import SKANCore

/// The advertised app's Info.plist keys that change what devices do with AdAttributionKit (spec §8.3a), spelled
/// as in the plist so a developer can copy them: `"info-plist": {"AdAttributionKitConfigurations": {…}}`.
public struct AdvertisedAppInfoPlist: Sendable, Decodable {
    /// `AdAttributionKitConfigurations`: install windows and cooldowns.
    public var configurations = AdAttributionKitConfigurations()
    /// `EligibleForAdAttributionKitReengagementPostbackCopies`: developer copies of re-engagement postbacks too.
    /// Default false, as on a device when the key is absent.
    public var reengagementPostbackCopies = false
    /// `EligibleForAdAttributionKitOverlappingConversions` (iOS 18.4): a new re-engagement leaves the earlier
    /// conversions' windows open instead of locking them. Default false.
    public var overlappingConversions = false

    enum CodingKeys: String, CodingKey {
        case configurations = "AdAttributionKitConfigurations"
        case reengagementPostbackCopies = "EligibleForAdAttributionKitReengagementPostbackCopies"
        case overlappingConversions = "EligibleForAdAttributionKitOverlappingConversions"
    }

    init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        configurations = try c.decodeIfPresent(AdAttributionKitConfigurations.self, forKey: .configurations) ?? .init()
        reengagementPostbackCopies = try c.decodeIfPresent(Bool.self, forKey: .reengagementPostbackCopies) ?? false
        overlappingConversions = try c.decodeIfPresent(Bool.self, forKey: .overlappingConversions) ?? false
    }
}

/// `AdAttributionKitConfigurations`: `AttributionWindows` (per network, `global`, else the defaults) and
/// `AttributionCooldown`.
public struct AdAttributionKitConfigurations: Sendable, Decodable {
    /// Install windows for one scope (`global` or an ad network id).
    public struct InstallWindows: Sendable, Hashable {
        /// Days a click keeps its chance to win an install, 1–30.
        public var clickDays: Int?
        /// Days a view keeps its chance, 1–7.
        public var viewDays: Int?
        /// `ignoreInteractionType` (network entries only, inside `install` as Apple places it, or beside it as this
        /// project's earlier campaign files did): impressions of this interaction never win for it.
        public var ignored: AdInteraction?
    }

    /// The default windows when nothing is configured: a view 1 day, a click 30 days (spec §8.3).
    public static let defaultViewDays = 1
    public static let defaultClickDays = 30

    /// `AttributionWindows.global`.
    public var global = InstallWindows()
    /// `AttributionWindows.<ad network id>`.
    public var byNetwork: [String: InstallWindows] = [:]
    /// `AttributionCooldown.install-cooldown-hours`: after an install, how long before a re-engagement can start.
    public var installCooldownHours = 0
    /// `AttributionCooldown.re-engagement-cooldown-hours`: after a re-engagement, how long before the next.
    public var reengagementCooldownHours = 0

    init() {}

    enum Keys: String, CodingKey {
        case windows = "AttributionWindows", cooldown = "AttributionCooldown"
    }

    enum CooldownKeys: String, CodingKey, CaseIterable {
        case install = "install-cooldown-hours"
        case reengagement = "re-engagement-cooldown-hours"
        /// The spelling of one WWDC25 slide (spec §8.3a).
        case reengagementAlias = "reengagement-cooldown-hours"
    }

    enum ScopeKeys: String, CodingKey {
        case install, ignoreInteractionType
    }

    enum InstallKeys: String, CodingKey, CaseIterable {
        case click, view, ignoreInteractionType
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        if c.contains(.windows) {
            let windows = try c.nestedContainer(keyedBy: AnyKey.self, forKey: .windows)
            for key in windows.allKeys {
                let scope = try windows.nestedContainer(keyedBy: ScopeKeys.self, forKey: key)
                var entry = InstallWindows()
                let isGlobal = key.stringValue == "global"
                if scope.contains(.install) {
                    // A key Apple does not define would be ignored by iOS and mean nothing here: refused, by its path.
                    let names = try scope.nestedContainer(keyedBy: AnyKey.self, forKey: .install)
                    if let unknown = names.allKeys.first(where: { InstallKeys(rawValue: $0.stringValue) == nil }) {
                        throw names.invalid(unknown, "one of \(InstallKeys.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
                    }
                    let install = try scope.nestedContainer(keyedBy: InstallKeys.self, forKey: .install)
                    if install.contains(.click) { entry.clickDays = try install.decodeInteger(forKey: .click, in: 1...30, default: nil) }
                    if install.contains(.view) { entry.viewDays = try install.decodeInteger(forKey: .view, in: 1...7, default: nil) }
                    // Where Apple's text and Info.plist example put it (spec §8.3a).
                    if install.contains(.ignoreInteractionType) {
                        guard !isGlobal else {
                            throw install.invalid(.ignoreInteractionType, "ignoreInteractionType only in an ad network's entry, not in global")
                        }
                        entry.ignored = try install.decodeChoice(AdInteraction.self, forKey: .ignoreInteractionType)
                    }
                }
                // Beside `install`, where earlier campaign files of this project put it: still read, the same rules.
                if scope.contains(.ignoreInteractionType) {
                    guard !isGlobal else {
                        throw scope.invalid(.ignoreInteractionType, "ignoreInteractionType only in an ad network's entry, not in global")
                    }
                    let beside = try scope.decodeChoice(AdInteraction.self, forKey: .ignoreInteractionType)
                    guard entry.ignored == nil || entry.ignored == beside else {
                        throw scope.invalid(.ignoreInteractionType, "the same value as install.ignoreInteractionType, or only one of them")
                    }
                    entry.ignored = beside
                }
                if isGlobal { global = entry } else { byNetwork[key.stringValue] = entry }
            }
        }
        if c.contains(.cooldown) {
            let cooldown = try c.nestedContainer(keyedBy: CooldownKeys.self, forKey: .cooldown)
            installCooldownHours = try cooldown.decodeInteger(forKey: .install, in: 0...720, default: 0)
            let spelling: CooldownKeys = cooldown.contains(.reengagement) ? .reengagement : .reengagementAlias
            reengagementCooldownHours = try cooldown.decodeInteger(forKey: spelling, in: 0...720, default: 0)
        }
    }

    /// How long an AdAttributionKit impression of `network` with `interaction` can win an install, in
    /// milliseconds; `nil` when the app ignores that interaction for the network. Network entry, then global,
    /// then the default, each value on its own (a network entry that sets only `click` keeps the global `view`).
    public func installWindow(network: String, interaction: AdInteraction) -> Int64? {
        let entry = byNetwork[network]
        if entry?.ignored == interaction { return nil }
        let days: Int
        switch interaction {
        case .click: days = entry?.clickDays ?? global.clickDays ?? Self.defaultClickDays
        case .view: days = entry?.viewDays ?? global.viewDays ?? Self.defaultViewDays
        }
        return Int64(days) * SimulatedTime.day
    }
}
