import Foundation
import SKANCore

/// One iPhone meeting a campaign: it is shown ads, checks them, maybe installs, runs the app's funnel and
/// prepares the postbacks iOS would send (spec §6). Pure: everything comes from the campaign and the generator.
public struct DeviceSimulator: Sendable {
    /// StoreKit-rendered and web ads are kept 30 days (spec §6.4).
    public static let clickRetention: Int64 = 30 * SimulatedTime.day
    /// View-through ads are kept 24 hours.
    public static let viewRetention: Int64 = 24 * SimulatedTime.hour
    /// At most this many view-through impressions per source app, oldest dropped.
    public static let viewThroughPerSourceApp = 15
    /// At most this many non-winning networks get a postback (3.0 and later).
    public static let maximumNonWinning = 5
    /// Install to first launch: later launches cannot be attributed.
    public static let launchWindow: Int64 = 60 * SimulatedTime.day
    /// Install to the app's first SKAdNetwork call: a later first call cannot be attributed (spec §6.4).
    public static let firstCallWindow: Int64 = 60 * SimulatedTime.day

    /// Everything one device did, for the output and for tests.
    public struct Outcome: Sendable {
        /// Ads shown (refused ones included).
        public var shown = 0
        /// Refused impressions by reason: bad signature, bad fields.
        public var refused = [0, 0]
        /// When the app was installed, if it was.
        public var installAt: Int64?
        /// When the app was first launched, if it was installed.
        public var launchAt: Int64?
        /// The app's first SKAdNetwork call (registration or a valid update): the install notification.
        public var firstCallAt: Int64?
        /// Why an install was not attributed.
        public var unattributed: Unattributed?
        /// Whether the install was a redownload.
        public var redownload = false
        /// Index of the winning ad.
        public var winningAd: Int?
        /// The postbacks, unsigned.
        public var postbacks: [PlannedPostback] = []
        /// Fine values the device accepted (≤3.0), in time order.
        public var acceptedValues: [Int] = []
        /// Update calls refused for a value outside 0...63.
        public var refusedUpdates = 0
        /// 4.0 fine values ignored because the first window was over.
        public var ignoredFineValues = 0
        /// The device's story, when it was run with `tracing`.
        public var trace: [TraceEvent]?
        /// Whether the app was on the device before the flight (no install; re-engagement only).
        public var hadApp = false
        /// The App Store account's country, once a postback needed it.
        public var country: String?
        /// Re-engagements: the ads whose tap re-opened the app, in time order.
        public var reengagedAds: [Int] = []
        /// Re-engagements that sent postbacks (the app updated a value within 2 days of the re-open).
        public var reengagementsAttributed = 0
        /// Taps on eligible ads that did not re-engage, by ``ReengagementRefusal``.
        public var reengagementRefusals = [Int](repeating: 0, count: ReengagementRefusal.allCases.count)

        mutating func note(_ at: Int64, _ text: @autoclosure () -> String) {
            if trace != nil { trace!.append(TraceEvent(at: at, text: text())) }
        }
    }

    /// Why a tap on an ad eligible for re-engagement opened the app without starting a conversion.
    public enum ReengagementRefusal: Int, Sendable, CaseIterable {
        /// Inside `install-cooldown-hours` after the install.
        case installCooldown
        /// Inside `re-engagement-cooldown-hours` after the last re-engagement.
        case reengagementCooldown
        /// Over the monthly per-app or the yearly per-device limit.
        case limit
    }

    /// Why an install got no postback.
    public enum Unattributed: Int, Sendable, CaseIterable {
        /// Installed from TestFlight, an enterprise build or another store.
        case notAppStore
        /// No kept impression within its window at install.
        case noImpressionInWindow
        /// First launch more than 60 days after install.
        case launchTooLate
        /// The app never registered nor set a valid conversion value: no install notification (spec §6.2).
        case noAppCall
        /// The app's first call came more than 60 days after install (spec §6.4).
        case firstCallTooLate
    }

    struct Shown {
        let ad: Int
        let at: Int64
        let entry: ImpressionPool.Entry
        /// False for a view shorter than ``minimumViewSeconds``: the device never records it.
        var counted = true
    }

    /// How long a view-through ad must stay on screen to count (iOS 15.4 and later).
    public static let minimumViewSeconds = 2.0

    let setup: CampaignSetup
    /// Keys the transaction ids with the run's campaign and seed.
    let idKey: TransactionIDKey

    /// A simulator for one prepared campaign, in the run of `seed`.
    public init(setup: CampaignSetup, seed: UInt64) {
        self.setup = setup
        idKey = TransactionIDKey(campaign: setup.campaign.identity, seed: seed)
    }

    /// Runs one device, drawing everything from `random`; `tracing` records its story in ``Outcome/trace``
    /// without changing any draw.
    public func run(_ random: inout SeededRandom, tracing: Bool = false) -> Outcome {
        var outcome = Outcome()
        if tracing { outcome.trace = [] }
        var conversions: [AAKConversion] = []
        let shown = install(&random, tracing: tracing, outcome: &outcome, conversions: &conversions)
        if setup.rules.reengages {
            reengage(shown, random: &random, outcome: &outcome, conversions: &conversions)
        }
        if !conversions.isEmpty {
            planAdAttributionKit(conversions, outcome: &outcome, random: &random)
        }
        if tracing { tracePostbacks(into: &outcome) }
        return outcome
    }

    /// Impressions, the install and its attribution: SKAdNetwork postbacks planned at once, AdAttributionKit
    /// conversions handed back (a later re-engagement can still lock them). Returns the impressions shown.
    private func install(_ random: inout SeededRandom, tracing: Bool, outcome: inout Outcome,
                         conversions: inout [AAKConversion]) -> [Shown] {
        let campaign = setup.campaign
        let audience = campaign.audience
        let flight = Int64(campaign.flightDays) * SimulatedTime.day

        // Impressions, in the order the device meets them.
        let count = Int(random.integer(in: Int64(audience.impressionsPerDevice.lowerBound)...Int64(audience.impressionsPerDevice.upperBound)))
        var shown: [Shown] = []
        shown.reserveCapacity(count)
        for _ in 0..<count {
            let ad = random.weighted(setup.cumulativeWeights)
            let at = campaign.start + random.integer(in: 0...flight - 1)
            let pool = setup.pools[ad]
            let entry = random.chance(campaign.settings.refusedImpressionRate)
                ? pool.faulty[random.below(pool.faulty.count)] : pool.valid[random.below(pool.valid.count)]
            // A view counts only after 2 seconds on screen (iOS 15.4+; spec §6.4, §8.1). Drawn only when the
            // campaign says how long views last, so other campaigns draw what they drew before.
            var counted = true
            if campaign.ads[ad].kind == .viewThrough, let seconds = audience.viewSeconds {
                counted = random.double(in: seconds) >= Self.minimumViewSeconds
            }
            shown.append(Shown(ad: ad, at: at, entry: entry, counted: counted))
        }
        shown.sort { $0.at < $1.at }
        outcome.shown = shown.count

        // Someone who has the app cannot install it: only a re-engagement can follow (drawn only when the
        // campaign has such devices, so other campaigns draw what they drew before).
        if audience.installedRate > 0, random.chance(audience.installedRate) {
            outcome.hadApp = true
            for impression in shown { if let refusal = impression.entry.refusal { outcome.refused[refusal.rawValue] += 1 } }
            if tracing {
                traceImpressions(shown, kept: [], installAt: nil, into: &outcome)
                outcome.note(campaign.start, "the app was already installed")
            }
            return shown
        }

        // The person may install because of any ad seen, valid or not: the device only decides attribution.
        var installAt: Int64?
        for impression in shown where random.chance(campaign.ads[impression.ad].installRate) {
            let delay = Int64(random.double(in: audience.installDelayHours) * Double(SimulatedTime.hour))
            installAt = min(installAt ?? .max, impression.at + delay)
        }
        if installAt == nil, random.chance(audience.organicInstallRate) {
            installAt = campaign.start + random.integer(in: 0...flight - 1)
        }
        guard let installAt else {
            for impression in shown { if let refusal = impression.entry.refusal { outcome.refused[refusal.rawValue] += 1 } }
            if tracing { traceImpressions(shown, kept: [], installAt: nil, into: &outcome) }
            return shown
        }
        outcome.installAt = installAt
        outcome.redownload = random.chance(audience.redownloadRate)
        let fromAppStore = random.chance(audience.appStoreRate)
        let launchAt = installAt + Int64(random.double(in: audience.launchDelayHours) * Double(SimulatedTime.hour))
        outcome.launchAt = launchAt

        // What the device keeps at install: valid, shown before it, inside its window, 15 view-through per app.
        var kept: [Shown] = []
        var viewThroughCount: [Int: Int] = [:]
        for impression in shown.reversed() where impression.at <= installAt {
            if let refusal = impression.entry.refusal {
                outcome.refused[refusal.rawValue] += 1
                continue
            }
            guard impression.counted else { continue }
            let ad = campaign.ads[impression.ad]
            guard let retention = setup.rules.installWindow(for: ad), installAt - impression.at <= retention else { continue }
            if setup.rules.capsViews(of: ad) {
                let source = ad.sourceAppID ?? 0
                guard viewThroughCount[source, default: 0] < Self.viewThroughPerSourceApp else { continue }
                viewThroughCount[source, default: 0] += 1
            }
            kept.append(impression)
        }
        for impression in shown where impression.at > installAt {
            if let refusal = impression.entry.refusal { outcome.refused[refusal.rawValue] += 1 }
        }
        if tracing {
            traceImpressions(shown, kept: kept, installAt: installAt, into: &outcome)
            let install = "install\(outcome.redownload ? " (redownload)" : "")\(fromAppStore ? "" : ", not from the App Store: never attributed")"
            outcome.note(installAt, install)
            outcome.note(launchAt, "first launch")
        }
        guard fromAppStore else { outcome.unattributed = .notAppStore; return shown }
        guard !kept.isEmpty else {
            outcome.unattributed = .noImpressionInWindow
            outcome.note(installAt, "not attributed: no kept impression in its window (spec §6.4)")
            return shown
        }
        guard launchAt - installAt <= Self.launchWindow else {
            outcome.unattributed = .launchTooLate
            outcome.note(launchAt, "not attributed: first launch more than 60 days after install (spec §6.4)")
            return shown
        }

        // `kept` runs newest first, so the first best is the most recent; only the newest few take part when
        // AdAttributionKit's contest applies.
        let version = campaign.version
        let rules = setup.rules
        if kept.count > rules.consideredImpressions { kept.removeLast(kept.count - rules.consideredImpressions) }
        func better(_ a: Shown, than b: Shown) -> Bool {
            guard rules.clickBeatsView else { return false }
            return campaign.ads[a.ad].kind.fidelityType > campaign.ads[b.ad].kind.fidelityType
        }
        var winner = kept[0]
        for impression in kept.dropFirst() where better(impression, than: winner) { winner = impression }
        let winningNetwork = setup.networkOfAd[winner.ad]
        var losers: [Shown] = []
        if version >= .v3_0 || rules.consideredImpressions != .max {
            var seen: Set<Int> = [winningNetwork]
            // Best impression per other network, by fidelity then recency; the top five.
            var candidates = kept
            candidates.sort { a, b in
                let fa = campaign.ads[a.ad].kind.fidelityType, fb = campaign.ads[b.ad].kind.fidelityType
                return fa != fb ? fa > fb : a.at > b.at
            }
            for impression in candidates where losers.count < Self.maximumNonWinning {
                if seen.insert(setup.networkOfAd[impression.ad]).inserted { losers.append(impression) }
            }
        }
        let tier = campaign.ads[winner.ad].privacyTier ?? random.weighted(tierWeights)

        // The funnel is drawn before the call rules are checked, so an unattributed install uses up the same
        // random numbers as an attributed one and the devices after it do not change.
        let events = funnel(launchAt: launchAt, random: &random)
        guard let firstCall = firstCall(launchAt: launchAt, events: events) else {
            outcome.unattributed = .noAppCall
            outcome.note(launchAt, "not attributed: the app never calls SKAdNetwork (spec §6.2)")
            if tracing { traceEvents(events, into: &outcome) }
            return shown
        }
        outcome.firstCallAt = firstCall
        if campaign.settings.registerAtLaunch { outcome.note(launchAt, "registerAppForAdNetworkAttribution(): install notification") }
        guard firstCall - installAt <= Self.firstCallWindow else {
            outcome.unattributed = .firstCallTooLate
            outcome.note(firstCall, "not attributed: the first call comes more than 60 days after install (spec §6.4)")
            if tracing { traceEvents(events, into: &outcome) }
            return shown
        }
        outcome.winningAd = winner.ad
        outcome.note(launchAt, "winner: \(describe(winner.ad)), privacy tier \(tier)\(losers.isEmpty ? "" : "; non-winning: " + losers.map { describe($0.ad) }.joined(separator: ", "))")
        // Each postback takes the framework of the impression it reports: the winner's framework decides the
        // winning postbacks, and a losing network hears in the form it signed its impression in.
        let skadnetworkLosers = version >= .v3_0 ? losers.filter { campaign.ads[$0.ad].framework == .skadnetwork } : []
        let aakLosers = losers.filter { campaign.ads[$0.ad].framework == .adAttributionKit }
        let skadnetworkWinner = campaign.ads[winner.ad].framework == .skadnetwork ? winner : nil
        if skadnetworkWinner != nil || !skadnetworkLosers.isEmpty {
            if version >= .v4_0 {
                plan40(winner: skadnetworkWinner, losers: skadnetworkLosers, tier: tier, launchAt: launchAt, firstCall: firstCall,
                       events: events, outcome: &outcome, random: &random)
            } else {
                plan30(winner: skadnetworkWinner, losers: skadnetworkLosers, tier: tier, launchAt: launchAt, events: events,
                       outcome: &outcome, random: &random)
            }
        }
        for index in outcome.postbacks.indices {
            outcome.postbacks[index].installAt = installAt
            outcome.postbacks[index].launchAt = launchAt
        }
        if skadnetworkWinner == nil || !aakLosers.isEmpty {
            conversions.append(AAKConversion(
                start: launchAt, installAt: installAt, kind: outcome.redownload ? .redownload : .download,
                winner: skadnetworkWinner == nil ? winner.ad : nil, losers: aakLosers.map(\.ad), tier: tier,
                events: events.map { ($0.at, $0.rule) }, firstCall: firstCall, timing: rules.aakTiming))
        } else if rules.reengages {
            // The install's SKAdNetwork conversion runs on its own timers; this placeholder sends nothing and
            // only lets later AdAttributionKit conversions see the app's untagged updates.
            conversions.append(AAKConversion(
                start: launchAt, installAt: installAt, kind: outcome.redownload ? .redownload : .download,
                winner: nil, losers: [], tier: tier, events: events.map { ($0.at, $0.rule) }, firstCall: firstCall,
                timing: rules.aakTiming))
        }
        return shown
    }

    /// The app's first call that generates the install notification (spec §6.2): registration at launch, or
    /// else the first update the device accepts. An out-of-range value is an error, not a call; a ≤3.0 app calls
    /// only for rules with a fine value, since ≤3.0 has no coarse value.
    func firstCall(launchAt: Int64, events: [(at: Int64, rule: ConversionRule?)]) -> Int64? {
        if setup.campaign.settings.registerAtLaunch { return launchAt }
        let coarseCalls = setup.campaign.version >= .v4_0
        for event in events {
            guard let rule = event.rule else { continue }
            if let fine = rule.fine {
                if (0...63).contains(fine) { return event.at }
            } else if coarseCalls {
                return event.at
            }
        }
        return nil
    }

    var tierWeights: [Double] {
        var total = 0.0
        return setup.campaign.privacyTiers.map { total += $0; return total }
    }

    /// The in-app events one user does after first launch, in time order, with cumulative revenue.
    func funnel(launchAt: Int64, random: inout SeededRandom) -> [(at: Int64, rule: ConversionRule?)] {
        let campaign = setup.campaign
        var happened: [(at: Int64, event: Int, revenue: Double)] = []
        for (index, event) in campaign.events.enumerated() where random.chance(event.probability) {
            let at = launchAt + Int64(random.double(in: event.delayHours) * Double(SimulatedTime.hour))
            happened.append((at, index, random.double(in: event.revenue)))
        }
        happened.sort { $0.at != $1.at ? $0.at < $1.at : $0.event < $1.event }
        var total = 0.0
        return happened.map { item in
            total += item.revenue
            let name = campaign.events[item.event].name
            let rule = campaign.conversionSchema.first { $0.event == name && total >= $0.minimumRevenue }
            return (item.at, rule)
        }
    }

    func transactionID(_ random: inout SeededRandom) -> String {
        // Two draws, as for any UUID, put through the run's key; then the version-4 bits, as lowercase text.
        let first = random.next()
        let second = random.next()
        let (high, low) = idKey.permute(first, second)
        return UUID.version4(high: high, low: low).lowercaseText
    }

}
