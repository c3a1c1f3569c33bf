/// The simulator's answers where Apple's documentation is open (spec §11). Every one has a default, written in
/// a campaign's `"settings"` object to change it.
public struct SimulationSettings: Sendable, Decodable {
    /// Which digits of a 4.0 source identifier survive truncation (spec §11.1).
    public enum DigitSide: String, Sendable, Decodable, CaseIterable {
        /// `5239` → `39` / `239`: fits Apple's own examples. The default.
        case trailing
        /// `5239` → `52` / `523`: what one third-party FAQ says.
        case leading
    }

    /// Whether the three 4.0 postbacks of one install share a `transaction-id` (spec §11.2).
    public enum TransactionIDs: String, Sendable, Decodable, CaseIterable {
        /// Every postback has its own. The default: a collector that dedupes on transaction-id alone stays right.
        case perPostback = "per-postback"
        /// One per install and network, repeated in postbacks 2 and 3.
        case perInstall = "per-install"
    }

    /// Default `trailing`.
    public var sourceIdentifierDigits: DigitSide = .trailing
    /// Digits of the source identifier kept in a winning first postback, by tier 0...3. Default `[2, 2, 3, 4]`:
    /// Apple fixes tiers 0 and 1 at two digits and allows two to four for tiers 2 and 3.
    public var digitsByTier: [Int] = [2, 2, 3, 4]
    /// Digits of the source identifier in 4.0 non-winning postbacks (spec §11.5). Default 2.
    public var nonWinningDigits: Int = 2
    /// Default `per-postback`.
    public var transactionIDs: TransactionIDs = .perPostback
    /// The share of impressions that networks serve broken (bad signature, wrong field order, uppercase nonce,
    /// id out of range, view-through below 2.2), which devices must refuse. Default 0.
    public var refusedImpressionRate: Double = 0
    /// How many signed impressions each placement holds ready; devices draw from them. Default 8.
    public var impressionPoolSize: Int = 8
    /// Whether the app calls `registerAppForAdNetworkAttribution()` at first launch. Default true; when false the
    /// first valid conversion update is the app's first call: it generates the install notification and (≤3.0)
    /// starts the timer, and an app that never makes one gets no postback (spec §6.2).
    public var registerAtLaunch: Bool = true
    /// Whether a 4.0 coarse value set in one window is still reported by the next window's postback when the app
    /// sets none there. Default true: the value is device state, not per window.
    public var coarseCarriesOver: Bool = true
    /// AdAttributionKit Developer Mode (iOS 18+): three-minute windows (0–3, 3–6, 6–9 minutes from the
    /// conversion) and postbacks 5–10 minutes after each window, for AdAttributionKit conversions. Default false.
    public var developerMode: Bool = false
    /// Re-engagements of the app one device may start in 30 days. Apple has a monthly per-app limit and does not
    /// publish it (spec §8.3a); default 2.
    public var reengagementsPerAppMonth: Int = 2
    /// Re-engagements one device may start in 365 days, all apps together (here: this app). Apple's yearly
    /// per-device limit is not published either; default 10.
    public var reengagementsPerDeviceYear: Int = 10
    /// Whether the app passes each conversion's tag (`AdAttributionKitReengagementOpen`) to its updates
    /// (iOS 18.4 `conversionTag`), so an update applies to the conversion that caused it. Default true; when
    /// false every update applies to the most recent conversion.
    public var conversionTags: Bool = true
    /// The share of winning postbacks with a developer copy whose ad-network copy a relay changes on the way (the fine
    /// value up by one, else the coarse value to the next; a postback with neither is left alone), so that the
    /// developer copy disagrees. Neither value is signed: both copies verify. Default 0.
    public var disagreeingCopyRate: Double = 0

    enum CodingKeys: String, CodingKey {
        case developerMode = "developer-mode", conversionTags = "conversion-tags"
        case reengagementsPerAppMonth = "re-engagements-per-app-month"
        case reengagementsPerDeviceYear = "re-engagements-per-device-year"
        case sourceIdentifierDigits = "source-identifier-digits", digitsByTier = "digits-by-tier"
        case nonWinningDigits = "non-winning-digits", transactionIDs = "transaction-ids"
        case refusedImpressionRate = "refused-impression-rate", impressionPoolSize = "impression-pool-size"
        case registerAtLaunch = "register-at-launch", coarseCarriesOver = "coarse-carries-over"
        case disagreeingCopyRate = "disagreeing-copy-rate"
    }

    /// The defaults.
    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if c.contains(.sourceIdentifierDigits) { sourceIdentifierDigits = try c.decodeChoice(DigitSide.self, forKey: .sourceIdentifierDigits) }
        if c.contains(.digitsByTier) {
            digitsByTier = try c.decode([Int].self, forKey: .digitsByTier)
            guard digitsByTier.count == 4, digitsByTier[0] == 2, digitsByTier[1] == 2,
                  digitsByTier.allSatisfy({ (2...4).contains($0) }) else {
                throw c.invalid(.digitsByTier, "four digit counts for tiers 0...3, tiers 0 and 1 at 2, the others 2...4, got \(digitsByTier)")
            }
        }
        nonWinningDigits = try c.decodeInteger(forKey: .nonWinningDigits, in: 2...4, default: 2)
        if c.contains(.transactionIDs) { transactionIDs = try c.decodeChoice(TransactionIDs.self, forKey: .transactionIDs) }
        refusedImpressionRate = try c.decodeRate(forKey: .refusedImpressionRate, in: 0...1, default: 0)
        disagreeingCopyRate = try c.decodeRate(forKey: .disagreeingCopyRate, in: 0...1, default: 0)
        impressionPoolSize = try c.decodeInteger(forKey: .impressionPoolSize, in: 1...1000, default: 8)
        registerAtLaunch = try c.decodeIfPresent(Bool.self, forKey: .registerAtLaunch) ?? true
        coarseCarriesOver = try c.decodeIfPresent(Bool.self, forKey: .coarseCarriesOver) ?? true
        developerMode = try c.decodeIfPresent(Bool.self, forKey: .developerMode) ?? false
        conversionTags = try c.decodeIfPresent(Bool.self, forKey: .conversionTags) ?? true
        reengagementsPerAppMonth = try c.decodeInteger(forKey: .reengagementsPerAppMonth, in: 0...1000, default: 2)
        reengagementsPerDeviceYear = try c.decodeInteger(forKey: .reengagementsPerDeviceYear, in: 0...10_000, default: 10)
    }
}
