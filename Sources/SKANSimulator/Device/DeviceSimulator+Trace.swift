import Foundation
import SKANCore

/// The device's story, told as it happens (`skan simulate --trace`): drawn from the same values, changing no draw.
extension DeviceSimulator {
    func describe(_ ad: Int) -> String {
        let placement = setup.campaign.ads[ad]
        return "ad #\(ad) (\(placement.network), \(placement.kind.rawValue))"
    }

    func traceImpressions(_ shown: [Shown], kept: [Shown], installAt: Int64?, into outcome: inout Outcome) {
        for impression in shown {
            let status: String
            if let refusal = impression.entry.refusal {
                status = "refused (\(refusal == .badSignature ? "bad signature" : "bad fields"): \(impression.entry.fault ?? ""))"
            } else if !impression.counted {
                status = "not recorded (on screen under 2 s)"
            } else if let installAt, impression.at <= installAt {
                status = kept.contains { $0.at == impression.at && $0.ad == impression.ad }
                    ? "kept for attribution" : "not kept (outside its window, or over the view-through cap)"
            } else {
                status = "shown"
            }
            outcome.note(impression.at, "impression: \(describe(impression.ad)) \(status)")
        }
    }

    func traceEvents(_ events: [(at: Int64, rule: ConversionRule?)], into outcome: inout Outcome) {
        for event in events {
            let call = event.rule.map { "fine \($0.fine.map(String.init) ?? "-"), coarse \($0.coarse?.rawValue ?? "-")" } ?? "no conversion rule"
            outcome.note(event.at, "in-app event: \(call)")
        }
    }

    func tracePostbacks(into outcome: inout Outcome) {
        let networks = setup.campaign.adNetworks
        for planned in outcome.postbacks {
            let fields = planned.fields
            let value = fields.conversionValue.map { "conversion-value \($0)" }
                ?? fields.coarseValue.map { "coarse-conversion-value \($0.rawValue)" } ?? "no value"
            let which = fields.window.map { "postback \($0)" } ?? "postback"
            let kind = planned.framework == .skadnetwork ? "" : " AdAttributionKit \(planned.conversionType.rawValue)"
            let role = fields.isWinning ? "winning" : "non-winning"
            let id = planned.framework == .skadnetwork ? "transaction-id" : "postback-identifier"
            outcome.note(planned.preparedAt, "\(which) prepared for \(networks[planned.network].id) (\(role)\(kind), \(value))")
            outcome.note(planned.sendAt, "\(which) sent to \(networks[planned.network].id), \(id) \(fields.dedupID)\(planned.developerCopy ? ", developer copy too" : "")")
        }
    }
}
