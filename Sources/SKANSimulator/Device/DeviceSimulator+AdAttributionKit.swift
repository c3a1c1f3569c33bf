import SKANCore

/// An AdAttributionKit conversion on a device (spec §8.3): an install that an AdAttributionKit impression won (or
/// where AdAttributionKit networks lost), or a re-engagement. Each has its own three windows from its start.
struct AAKConversion {
    /// First launch (install) or the re-open through the ad (re-engagement).
    let start: Int64
    /// When the app was installed; for a re-engagement, the re-open.
    let installAt: Int64
    /// `download`, `redownload` or `re-engagement`.
    let kind: ConversionType
    /// The winning ad, when it is an AdAttributionKit one.
    let winner: Int?
    /// AdAttributionKit ads of other networks that lost (installs only).
    let losers: [Int]
    /// The privacy tier of the conversion.
    let tier: Int
    /// The app's calls made for this conversion, in time order.
    let events: [(at: Int64, rule: ConversionRule?)]
    /// The first call that counts for the conversion; re-engagements learn it from the events.
    var firstCall: Int64?
    /// Where the windows end.
    let timing: ConversionWindows.Timing
}

extension DeviceSimulator {
    /// Re-engagement within 2 days: a re-engagement whose app sends no update in that time gets no postback.
    static let reengagementFirstCallWindow: Int64 = 2 * SimulatedTime.day

    /// Taps on ads eligible for re-engagement by someone who has the app: each re-opens it and, within the
    /// cooldowns and limits, starts a re-engagement conversion with its own funnel.
    func reengage(_ shown: [Shown], random: inout SeededRandom, outcome: inout Outcome, conversions: inout [AAKConversion]) {
        let campaign = setup.campaign
        let settings = campaign.settings
        let cooldowns = campaign.advertisedApp.infoPlist.configurations
        let appSince: Int64
        if outcome.hadApp {
            appSince = .min
        } else if let installAt = outcome.installAt {
            appSince = installAt
        } else {
            return
        }
        var opens: [Int64] = []
        for impression in shown where impression.at > appSince && impression.entry.refusal == nil {
            let ad = campaign.ads[impression.ad]
            // Only these ads draw, so campaigns without them draw what they drew before.
            guard ad.reengagementRate > 0, random.chance(ad.reengagementRate) else { continue }
            let at = impression.at
            // A tap before the app was ever opened opens it for the first time: that is its first launch, not a
            // re-engagement (checked after the draw, so that every other tap draws what it drew before).
            if !outcome.hadApp, let launchAt = outcome.launchAt, at <= launchAt {
                outcome.note(at, "tap on \(describe(impression.ad)) opens the app for the first time: its first launch, no re-engagement")
                continue
            }
            let refusal: ReengagementRefusal?
            if !outcome.hadApp, at - appSince < Int64(cooldowns.installCooldownHours) * SimulatedTime.hour {
                refusal = .installCooldown
            } else if let last = opens.last, at - last < Int64(cooldowns.reengagementCooldownHours) * SimulatedTime.hour {
                refusal = .reengagementCooldown
            } else if opens.filter({ at - $0 < 30 * SimulatedTime.day }).count >= settings.reengagementsPerAppMonth
                        || opens.filter({ at - $0 < 365 * SimulatedTime.day }).count >= settings.reengagementsPerDeviceYear {
                refusal = .limit
            } else {
                refusal = nil
            }
            if let refusal {
                outcome.reengagementRefusals[refusal.rawValue] += 1
                outcome.note(at, "tap on \(describe(impression.ad)) opens the app; no re-engagement (\(refusal))")
                continue
            }
            opens.append(at)
            outcome.reengagedAds.append(impression.ad)
            let tier = ad.privacyTier ?? random.weighted(tierWeights)
            let events = funnel(launchAt: at, random: &random)
            outcome.note(at, "tap on \(describe(impression.ad)) re-opens the app with AdAttributionKitReengagementOpen: re-engagement, privacy tier \(tier)")
            conversions.append(AAKConversion(
                start: at, installAt: at, kind: .reengagement, winner: impression.ad, losers: [], tier: tier,
                events: events, firstCall: nil, timing: setup.rules.aakTiming))
        }
    }

    /// Runs the app's calls through every AdAttributionKit conversion's windows and plans their postbacks.
    ///
    /// Which conversion an update applies to: with conversion tags, the one that caused it (its own funnel);
    /// without, the most recent one started. Unless the app opts in to overlapping conversions, a new
    /// re-engagement locks the earlier conversions' open windows and removes those not begun (spec §8.3a).
    func planAdAttributionKit(_ conversions: [AAKConversion], outcome: inout Outcome, random: inout SeededRandom) {
        let campaign = setup.campaign
        let settings = campaign.settings
        let plist = campaign.advertisedApp.infoPlist
        var conversions = conversions
        var windows = conversions.map {
            ConversionWindows(firstLaunch: $0.start, coarseCarriesOver: settings.coarseCarriesOver, timing: $0.timing)
        }
        // Starts and calls in time order; at one instant a start goes before the calls.
        var steps: [(at: Int64, conversion: Int, event: Int?)] = []
        for (index, conversion) in conversions.enumerated() {
            if conversion.kind == .reengagement { steps.append((conversion.start, index, nil)) }
            for event in conversion.events.indices { steps.append((conversion.events[event].at, index, event)) }
        }
        steps.sort { a, b in
            if a.at != b.at { return a.at < b.at }
            if (a.event == nil) != (b.event == nil) { return a.event == nil }
            return a.conversion != b.conversion ? a.conversion < b.conversion : (a.event ?? 0) < (b.event ?? 0)
        }
        for step in steps {
            guard let event = step.event else {
                if !plist.overlappingConversions {
                    for earlier in 0..<step.conversion { windows[earlier].supersede(at: step.at) }
                }
                continue
            }
            guard let rule = conversions[step.conversion].events[event].rule else { continue }
            let target = settings.conversionTags ? step.conversion
                : conversions.indices.last { conversions[$0].start <= step.at } ?? step.conversion
            let result = windows[target].update(fine: rule.fine, coarse: rule.coarse, lock: rule.lock, at: step.at)
            if result == .accepted || result == .fineIgnored, conversions[target].firstCall == nil {
                conversions[target].firstCall = step.at
            }
            outcome.note(step.at, "updateConversionValue(\(rule.fine.map(String.init) ?? "-"), coarse: \(rule.coarse?.rawValue ?? "-"), lockPostback: \(rule.lock)) for the \(conversions[target].kind.rawValue) of \(SimulatedTime.iso8601(conversions[target].start)): \(result)")
            if conversions[target].kind == .reengagement {
                if result == .outOfRange { outcome.refusedUpdates += 1 }
                if result == .fineIgnored { outcome.ignoredFineValues += 1 }
            }
        }
        for (index, conversion) in conversions.enumerated() {
            let snapshots = windows[index].finish()
            guard let firstCall = conversion.firstCall else { continue }
            if conversion.kind == .reengagement {
                guard firstCall - conversion.start <= Self.reengagementFirstCallWindow else {
                    outcome.note(firstCall, "re-engagement not attributed: the app's first update came more than 2 days after the re-open")
                    continue
                }
                outcome.reengagementsAttributed += 1
            }
            plan(conversion, snapshots: snapshots, firstCall: firstCall, outcome: &outcome, random: &random)
        }
    }

    /// The postbacks of one AdAttributionKit conversion: the winner's, one per window prepared after the first
    /// call (tier 0: the first only), and (installs) one non-winning postback per losing network.
    private func plan(_ conversion: AAKConversion, snapshots: [ConversionWindows.Snapshot], firstCall: Int64,
                      outcome: inout Outcome, random: inout SeededRandom) {
        let campaign = setup.campaign
        let settings = campaign.settings
        let tier = conversion.tier
        let copies = setup.developerCopyDestination(for: .adAttributionKit) != nil
            && (conversion.kind != .reengagement || campaign.advertisedApp.infoPlist.reengagementPostbackCopies)
        func postback(ad adIndex: Int, window: Int, won: Bool, digits: Int) -> AAKPostback {
            let ad = campaign.ads[adIndex]
            return AAKPostback(
                kid: campaign.appleKeys.aakKid, adNetworkIdentifier: campaign.adNetworks[setup.networkOfAd[adIndex]].id,
                postbackIdentifier: transactionID(&random), advertisedItemIdentifier: campaign.advertisedApp.appID,
                conversionType: conversion.kind, didWin: won, postbackSequenceIndex: window,
                sourceIdentifier: PrivacyTier.truncate(ad.sourceIdentifier ?? 0, digits: digits, side: settings.sourceIdentifierDigits),
                adInteractionType: ad.interaction)
        }
        let delays = conversion.timing.delays
        if let winner = conversion.winner {
            for (index, snapshot) in snapshots.enumerated() where snapshot.preparedAt >= firstCall {
                if index > 0 && tier == 0 { break }
                var body = postback(ad: winner, window: index, won: true, digits: index == 0 ? settings.digitsByTier[tier] : 2)
                if index == 0 && tier == 3 {
                    // The top tier's fields (spec §8.2): the publisher and the account's country.
                    body.publisherItemIdentifier = campaign.ads[winner].sourceAppID
                    body.countryCode = country(&random, outcome: &outcome)
                }
                if index == 0 && tier > 0 {
                    // Apple's multi-window page: the framework "omits this property from Tier 0 postbacks"; its lists
                    // per tier do not name it, so the one explicit sentence decides (README, simulator choices).
                    body.marketplaceIdentifier = campaign.audience.marketplace
                }
                let values = PrivacyTier.values(snapshot, window: index, tier: tier)
                body.conversionValue = values.fine
                body.coarseConversionValue = values.coarse
                let lastUpdate = values.setAt
                outcome.postbacks.append(PlannedPostback(
                    body: .adAttributionKit(body), sendAt: snapshot.preparedAt + random.integer(in: delays[index]),
                    preparedAt: snapshot.preparedAt, lastChange: nil, network: setup.networkOfAd[winner], tier: tier,
                    developerCopy: copies, lastUpdateAt: lastUpdate, installAt: conversion.installAt,
                    launchAt: conversion.start))
            }
        }
        for loser in conversion.losers where snapshots[0].preparedAt >= firstCall {
            let prepared = snapshots[0].preparedAt
            outcome.postbacks.append(PlannedPostback(
                body: .adAttributionKit(postback(ad: loser, window: 0, won: false, digits: settings.nonWinningDigits)),
                sendAt: prepared + random.integer(in: delays[0]), preparedAt: prepared, lastChange: nil,
                network: setup.networkOfAd[loser], tier: tier, developerCopy: false, installAt: conversion.installAt,
                launchAt: conversion.start))
        }
    }

    /// The App Store account's country, drawn when a postback first needs it and kept for the device: a
    /// re-engagement reports the original install's country (spec §8.3a).
    private func country(_ random: inout SeededRandom, outcome: inout Outcome) -> String {
        if let country = outcome.country { return country }
        let countries = setup.campaign.audience.countries
        var total = 0.0
        let weights = countries.map { total += $0.share; return total }
        let country = countries.count == 1 ? countries[0].code : countries[random.weighted(weights)].code
        outcome.country = country
        return country
    }
}
