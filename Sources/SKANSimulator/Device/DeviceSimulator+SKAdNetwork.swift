import Foundation
import SKANCore

/// The SKAdNetwork postbacks of one install: versions 1.0–3.0 on the timer, 4.0 in three windows.
extension DeviceSimulator {
    /// Versions 1.0–3.0: one winning postback when the timer runs out, plus non-winning ones from 3.0.
    func plan30(winner: Shown?, losers: [Shown], tier: Int, launchAt: Int64,
                        events: [(at: Int64, rule: ConversionRule?)], outcome: inout Outcome, random: inout SeededRandom) {
        let campaign = setup.campaign
        let version: PostbackVersion = campaign.version
        var timer = ConversionTimer()
        if campaign.settings.registerAtLaunch { timer.register(at: launchAt) }
        for event in events {
            guard let fine = event.rule?.fine else { continue }
            let result = timer.update(fine, at: event.at)
            switch result {
            case .accepted: outcome.acceptedValues.append(fine)
            case .outOfRange: outcome.refusedUpdates += 1
            case .notGreater, .final: break
            }
            outcome.note(event.at, "updateConversionValue(\(fine)): \(result)")
        }
        // `run` attributes only installs whose app called, so the timer has started.
        guard let deadline = timer.deadline, let lastChange = timer.lastChange else { return }
        let threshold = PrivacyTier.meetsThreshold(tier)
        func postback(for impression: Shown, won: Bool) -> PlannedPostback {
            let ad = campaign.ads[impression.ad]
            let sendAt = deadline + random.integer(in: 0...ConversionTimer.length)
            let body = Postback(
                version: version, adNetworkID: campaign.adNetworks[setup.networkOfAd[impression.ad]].id,
                campaignID: ad.campaignID, appID: campaign.advertisedApp.appID, transactionID: transactionID(&random),
                redownload: version >= .v2_0 ? outcome.redownload : nil,
                sourceAppID: version >= .v2_0 && won && threshold ? ad.sourceAppID : nil,
                fidelityType: version >= .v2_2 ? ad.kind.fidelityType : nil,
                didWin: version >= .v3_0 ? won : nil,
                conversionValue: version >= .v2_0 && won && threshold ? timer.value : nil)
            return PlannedPostback(body: .skadnetwork(body), sendAt: sendAt, preparedAt: deadline, lastChange: lastChange,
                                   network: setup.networkOfAd[impression.ad], tier: tier,
                                   developerCopy: won && setup.developerCopyDestination(for: .skadnetwork) != nil,
                                   lastUpdateAt: body.conversionValue == nil ? nil : lastChange)
        }
        if let winner { outcome.postbacks.append(postback(for: winner, won: true)) }
        for loser in losers { outcome.postbacks.append(postback(for: loser, won: false)) }
    }

    /// Version 4.0: up to three winning postbacks by window, non-winning ones only for the first.
    ///
    /// A window that closed before the app's first call sends nothing: the device had no install notification
    /// to prepare a postback from (spec §6.2; the timing is open, see the README).
    func plan40(winner: Shown?, losers: [Shown], tier: Int, launchAt: Int64, firstCall: Int64,
                        events: [(at: Int64, rule: ConversionRule?)], outcome: inout Outcome, random: inout SeededRandom) {
        let campaign = setup.campaign
        let settings = campaign.settings
        var windows = ConversionWindows(firstLaunch: launchAt, coarseCarriesOver: settings.coarseCarriesOver)
        for event in events {
            guard let rule = event.rule else { continue }
            let result = windows.update(fine: rule.fine, coarse: rule.coarse, lock: rule.lock, at: event.at)
            switch result {
            case .outOfRange: outcome.refusedUpdates += 1
            case .fineIgnored: outcome.ignoredFineValues += 1
            case .accepted, .closed: break
            }
            outcome.note(event.at, "updatePostbackConversionValue(\(rule.fine.map(String.init) ?? "-"), coarse: \(rule.coarse?.rawValue ?? "-"), lock: \(rule.lock)): \(result)")
        }
        let snapshots = windows.finish()
        if let winner {
            planWinning40(winner, snapshots: snapshots, tier: tier, firstCall: firstCall, outcome: &outcome, random: &random)
        }
        for loser in losers where snapshots[0].preparedAt >= firstCall {
            let ad = campaign.ads[loser.ad]
            let network = setup.networkOfAd[loser.ad]
            let body = Postback(
                version: .v4_0, adNetworkID: campaign.adNetworks[network].id,
                sourceIdentifier: PrivacyTier.truncate(ad.sourceIdentifier ?? 0, digits: settings.nonWinningDigits, side: settings.sourceIdentifierDigits),
                appID: campaign.advertisedApp.appID, transactionID: transactionID(&random),
                redownload: outcome.redownload, fidelityType: ad.kind.fidelityType, didWin: false, postbackSequenceIndex: 0)
            let prepared = snapshots[0].preparedAt
            outcome.postbacks.append(PlannedPostback(
                body: .skadnetwork(body), sendAt: prepared + random.integer(in: ConversionWindows.delays[0]), preparedAt: prepared,
                lastChange: nil, network: network, tier: tier, developerCopy: false))
        }
    }

    /// The 4.0 winner's postbacks, one per window prepared after the app's first call.
    func planWinning40(_ winner: Shown, snapshots: [ConversionWindows.Snapshot], tier: Int, firstCall: Int64,
                               outcome: inout Outcome, random: inout SeededRandom) {
        let campaign = setup.campaign
        let settings = campaign.settings
        let sharedIDs = settings.transactionIDs == .perInstall
        let winnerAd = campaign.ads[winner.ad]
        let winnerNetwork = setup.networkOfAd[winner.ad]
        let installID = transactionID(&random)
        for (index, snapshot) in snapshots.enumerated() where snapshot.preparedAt >= firstCall {
            if index > 0 && tier == 0 { break }
            let sendAt = snapshot.preparedAt + random.integer(in: ConversionWindows.delays[index])
            let digits = index == 0 ? settings.digitsByTier[tier] : 2
            var body = Postback(
                version: .v4_0, adNetworkID: campaign.adNetworks[winnerNetwork].id,
                sourceIdentifier: PrivacyTier.truncate(winnerAd.sourceIdentifier ?? 0, digits: digits, side: settings.sourceIdentifierDigits),
                appID: campaign.advertisedApp.appID, transactionID: sharedIDs ? installID : transactionID(&random),
                redownload: outcome.redownload, fidelityType: winnerAd.kind.fidelityType, didWin: true,
                postbackSequenceIndex: index)
            if index == 0 && tier == 3 {
                if winnerAd.kind == .web { body.sourceDomain = winnerAd.sourceDomain } else { body.sourceAppID = winnerAd.sourceAppID }
            }
            let values = PrivacyTier.values(snapshot, window: index, tier: tier)
            body.conversionValue = values.fine
            body.coarseConversionValue = values.coarse
            let lastUpdate = values.setAt
            outcome.postbacks.append(PlannedPostback(
                body: .skadnetwork(body), sendAt: sendAt, preparedAt: snapshot.preparedAt, lastChange: nil, network: winnerNetwork,
                tier: tier, developerCopy: setup.developerCopyDestination(for: .skadnetwork) != nil, lastUpdateAt: lastUpdate))
        }
    }
}
