import SKANCore

/// Crowd-anonymity tiers (spec §3.3): which fields survive in a postback.
public enum PrivacyTier {
    /// Before 4.0 there is one privacy threshold; tiers 2 and 3 stand for "met", 0 and 1 for "not met".
    public static func meetsThreshold(_ tier: Int) -> Bool { tier >= 2 }

    /// The source identifier cut to `digits` digits, keeping the trailing or leading ones (spec §11.1).
    public static func truncate(_ sourceIdentifier: Int, digits: Int, side: SimulationSettings.DigitSide) -> String {
        let text = String(sourceIdentifier)
        guard text.count > digits else { return text }
        return String(side == .trailing ? text.suffix(digits) : text.prefix(digits))
    }

    /// What a winning postback of a three-window conversion (4.0, AdAttributionKit) carries from a window
    /// (spec §3.3, §8.2): the fine value in the first window from tier 2, else the coarse value from tier 1, and
    /// when the value it carries was set.
    static func values(_ snapshot: ConversionWindows.Snapshot, window: Int, tier: Int) -> (fine: Int?, coarse: CoarseValue?, setAt: Int64?) {
        if window == 0 && tier >= 2 { return (snapshot.fine, nil, snapshot.fine == nil ? nil : snapshot.fineSetAt) }
        if tier >= 1 { return (nil, snapshot.coarse, snapshot.coarse == nil ? nil : snapshot.coarseSetAt) }
        return (nil, nil, nil)
    }
}
