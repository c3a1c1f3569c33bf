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
}
