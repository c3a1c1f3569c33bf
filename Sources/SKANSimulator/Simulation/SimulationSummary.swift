import SKANCore

/// What a run produced, for the summary line a person reads and for tests.
public struct SimulationSummary: Sendable, Hashable {
    /// Devices simulated.
    public var devices = 0
    /// Impressions shown, refused ones included.
    public var impressionsShown = 0
    /// Impressions refused for a signature that does not match (wrong order, uppercase nonce, tampering).
    public var refusedBadSignature = 0
    /// Impressions refused for fields that break the rules (id out of range, view-through below 2.2).
    public var refusedBadFields = 0
    /// Installs, attributed or not.
    public var installs = 0
    /// Installs attributed to an ad network.
    public var attributedInstalls = 0
    /// Installs not attributed, by ``DeviceSimulator/Unattributed`` reason.
    public var unattributed = [Int](repeating: 0, count: DeviceSimulator.Unattributed.allCases.count)
    /// Attributed installs that were redownloads.
    public var redownloads = 0
    /// Postbacks to ad networks (developer copies not included), by version in `PostbackVersion.allCases` order.
    public var postbacksByVersion = [Int](repeating: 0, count: PostbackVersion.allCases.count)
    /// 4.0 winning postbacks by window (postback-sequence-index 0, 1, 2).
    public var postbacksByWindow = [0, 0, 0]
    /// Winning postbacks by privacy tier 0...3 (4.0: first postbacks only).
    public var winningByTier = [0, 0, 0, 0]
    /// Winning postbacks.
    public var winning = 0
    /// Non-winning postbacks.
    public var nonWinning = 0
    /// Developer copies to the advertiser.
    public var developerCopies = 0
    /// Ad-network copies a relay changed, so that their developer copies disagree (`disagreeing-copy-rate`).
    public var disagreeingCopies = 0
    /// Postbacks with neither a fine nor a coarse conversion value.
    public var nullConversionValues = 0
    /// App calls refused for a fine value outside 0...63.
    public var refusedUpdates = 0
    /// 4.0 fine values ignored after the first window.
    public var ignoredFineValues = 0
    /// AdAttributionKit postbacks to ad networks, by conversion type (download, redownload, re-engagement).
    public var aakPostbacksByType = [Int](repeating: 0, count: ConversionType.allCases.count)
    /// Devices that had the app before the flight.
    public var devicesWithApp = 0
    /// Re-engagements started (taps on eligible ads that re-opened the app within cooldowns and limits).
    public var reengagements = 0
    /// Re-engagements that sent postbacks.
    public var reengagementsAttributed = 0
    /// Taps that re-opened the app without a re-engagement, by ``DeviceSimulator/ReengagementRefusal``.
    public var reengagementRefusals = [Int](repeating: 0, count: DeviceSimulator.ReengagementRefusal.allCases.count)

    /// An empty summary.
    public init() {}

    /// All postbacks to ad networks.
    public var postbacks: Int { postbacksByVersion.reduce(0, +) + aakPostbacks }

    /// AdAttributionKit postbacks to ad networks.
    public var aakPostbacks: Int { aakPostbacksByType.reduce(0, +) }

    /// Adds one device's outcome.
    mutating func add(_ outcome: DeviceSimulator.Outcome) {
        devices += 1
        impressionsShown += outcome.shown
        refusedBadSignature += outcome.refused[0]
        refusedBadFields += outcome.refused[1]
        refusedUpdates += outcome.refusedUpdates
        ignoredFineValues += outcome.ignoredFineValues
        if outcome.hadApp { devicesWithApp += 1 }
        reengagements += outcome.reengagedAds.count
        reengagementsAttributed += outcome.reengagementsAttributed
        for index in reengagementRefusals.indices { reengagementRefusals[index] += outcome.reengagementRefusals[index] }
        // Install postbacks exist only for attributed installs; re-engagement ones whatever became of the install.
        for planned in outcome.postbacks { count(planned) }
        guard outcome.installAt != nil else { return }
        installs += 1
        if let reason = outcome.unattributed {
            unattributed[reason.rawValue] += 1
            return
        }
        attributedInstalls += 1
        if outcome.redownload { redownloads += 1 }
    }

    private mutating func count(_ planned: PlannedPostback) {
        switch planned.body {
        case .skadnetwork(let postback):
            postbacksByVersion[PostbackVersion.allCases.firstIndex(of: postback.version)!] += 1
        case .adAttributionKit(let postback):
            aakPostbacksByType[ConversionType.allCases.firstIndex(of: postback.conversionType)!] += 1
        }
        let fields = planned.fields
        if fields.isWinning {
            winning += 1
            if let index = fields.window { postbacksByWindow[index] += 1 }
            if (fields.window ?? 0) == 0 { winningByTier[planned.tier] += 1 }
        } else {
            nonWinning += 1
        }
        if planned.developerCopy { developerCopies += 1 }
        if !fields.carriesValue { nullConversionValues += 1 }
    }

    /// Adds another chunk's summary.
    mutating func add(_ other: SimulationSummary) {
        devices += other.devices
        impressionsShown += other.impressionsShown
        refusedBadSignature += other.refusedBadSignature
        refusedBadFields += other.refusedBadFields
        installs += other.installs
        attributedInstalls += other.attributedInstalls
        for index in unattributed.indices { unattributed[index] += other.unattributed[index] }
        redownloads += other.redownloads
        for index in postbacksByVersion.indices { postbacksByVersion[index] += other.postbacksByVersion[index] }
        for index in postbacksByWindow.indices { postbacksByWindow[index] += other.postbacksByWindow[index] }
        for index in winningByTier.indices { winningByTier[index] += other.winningByTier[index] }
        winning += other.winning
        nonWinning += other.nonWinning
        developerCopies += other.developerCopies
        disagreeingCopies += other.disagreeingCopies
        nullConversionValues += other.nullConversionValues
        refusedUpdates += other.refusedUpdates
        ignoredFineValues += other.ignoredFineValues
        for index in aakPostbacksByType.indices { aakPostbacksByType[index] += other.aakPostbacksByType[index] }
        devicesWithApp += other.devicesWithApp
        reengagements += other.reengagements
        reengagementsAttributed += other.reengagementsAttributed
        for index in reengagementRefusals.indices { reengagementRefusals[index] += other.reengagementRefusals[index] }
    }

    /// The summary as lines for a person.
    public var lines: [String] {
        func percent(_ part: Int, _ whole: Int) -> String {
            whole == 0 ? "0%" : String(format: "%.1f%%", Double(part) * 100 / Double(whole))
        }
        let versions = (zip(PostbackVersion.allCases, postbacksByVersion).filter { $0.1 > 0 }.map { "\($0.0.rawValue): \($0.1)" }
            + (aakPostbacks > 0 ? ["AdAttributionKit: \(aakPostbacks)"] : [])).joined(separator: ", ")
        var lines = [
            "devices            \(devices)",
            "impressions        \(impressionsShown) shown, \(refusedBadSignature + refusedBadFields) refused (\(refusedBadSignature) bad signature, \(refusedBadFields) bad fields)",
            "installs           \(installs): \(attributedInstalls) attributed (\(percent(attributedInstalls, devices)) of devices), \(redownloads) redownloads",
            "unattributed       \(unattributed[0]) not from the App Store, \(unattributed[1]) no impression in window, \(unattributed[2]) launched too late, \(unattributed[3]) no SKAdNetwork call, \(unattributed[4]) first call after 60 days",
            "postbacks          \(postbacks) (\(versions.isEmpty ? "none" : versions)): \(winning) winning, \(nonWinning) non-winning",
            "winning by tier    0: \(winningByTier[0]), 1: \(winningByTier[1]), 2: \(winningByTier[2]), 3: \(winningByTier[3])",
        ]
        if postbacksByWindow.contains(where: { $0 > 0 }) {
            lines.append("winning by window  0: \(postbacksByWindow[0]), 1: \(postbacksByWindow[1]), 2: \(postbacksByWindow[2])")
        }
        if aakPostbacks > 0 {
            let types = zip(ConversionType.allCases, aakPostbacksByType).map { "\($0.0.rawValue) \($0.1)" }.joined(separator: ", ")
            lines.append("AdAttributionKit   \(types)")
        }
        if devicesWithApp + reengagements + reengagementRefusals.reduce(0, +) > 0 {
            lines.append("re-engagements     \(reengagements) started (\(devicesWithApp) devices had the app), \(reengagementsAttributed) with postbacks; taps refused: \(reengagementRefusals[0]) install cooldown, \(reengagementRefusals[1]) re-engagement cooldown, \(reengagementRefusals[2]) over the limits")
        }
        lines += [
            "null values        \(nullConversionValues) postbacks without a conversion value",
            "developer copies   \(developerCopies)" + (disagreeingCopies > 0
                ? ", \(disagreeingCopies) disagreeing (a relay changed the ad network's copy)" : ""),
            "app calls refused  \(refusedUpdates) out-of-range values, \(ignoredFineValues) fine values after window 1 ignored",
        ]
        return lines
    }
}
