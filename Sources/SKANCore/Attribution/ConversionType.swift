/// What the attributed conversion was. SKAdNetwork says it with `redownload`; AdAttributionKit with
/// `conversion-type`, which adds re-engagement (an ad that brought a user back to an app already installed).
public enum ConversionType: String, Sendable, Hashable, CaseIterable {
    case download
    case redownload
    case reengagement = "re-engagement"
}

/// How the user met the ad: SKAdNetwork's `fidelity-type` (0 view-through, 1 StoreKit-rendered or web) and
/// AdAttributionKit's `ad-interaction-type` (`view`, `click`).
public enum AdInteraction: String, Sendable, Hashable, CaseIterable {
    case view
    case click

    /// SKAdNetwork's `fidelity-type` number for the interaction.
    public var fidelityType: Int {
        switch self {
        case .view: 0
        case .click: 1
        }
    }

    /// The interaction a `fidelity-type` number stands for; `nil` for a number the protocol does not define.
    public init?(fidelityType: Int) {
        switch fidelityType {
        case 0: self = .view
        case 1: self = .click
        default: return nil
        }
    }
}
