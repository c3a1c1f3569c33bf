/// SKAdNetwork's side of the attribution layer: its verdicts and postbacks in neutral terms.
extension AttributionVerdict {
    /// The neutral verdict for an SKAdNetwork verdict.
    init(_ verdict: PostbackVerdict) {
        if case .valid(let verified) = verdict {
            self = .valid(VerifiedAttribution(framework: .skadnetwork, fields: AttributionFields(verified.postback),
                                              keyName: verified.keyName, scheme: verified.layout.rawValue,
                                              note: verdict.reason, detail: .skadnetwork(verified)))
            return
        }
        self = .refused(AttributionRefusal(framework: .skadnetwork, status: verdict.status, field: verdict.field,
                                           reason: verdict.reason ?? "", version: verdict.version,
                                           dedupID: verdict.transactionID, network: verdict.postback?.adNetworkID))
    }
}

extension AttributionFields {
    /// The neutral fields of an SKAdNetwork postback.
    public init(_ postback: Postback) {
        self.init(network: postback.adNetworkID, dedupID: postback.transactionID, appID: postback.appID,
                  campaign: postback.campaignID, sourceIdentifier: postback.sourceIdentifier,
                  sourceAppID: postback.sourceAppID, sourceDomain: postback.sourceDomain,
                  window: postback.postbackSequenceIndex, didWin: postback.didWin,
                  conversionType: postback.redownload.map { $0 ? .redownload : .download },
                  interaction: postback.fidelityType.flatMap(AdInteraction.init(fidelityType:)),
                  frameworkVersion: postback.version.rawValue, statesVersion: postback.hasVersionKey,
                  conversionValue: postback.conversionValue, coarseValue: postback.coarseConversionValue,
                  countryCode: postback.countryCode, signature: postback.attributionSignature,
                  extras: postback.extras)
    }
}
