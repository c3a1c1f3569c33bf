import SKANCore

/// A postback a device has decided to send, before Apple's signature: what, to whom, and when.
public struct PlannedPostback: Sendable {
    /// The postback in its framework's form, chosen once by the impression it reports.
    public enum Body: Sendable {
        /// `attribution-signature` still empty.
        case skadnetwork(Postback)
        /// `jws-string` still empty; `kid` set.
        case adAttributionKit(AAKPostback)
    }

    /// What the device sends.
    public var body: Body
    /// When the device sends it, milliseconds since 1970.
    public var sendAt: Int64
    /// When it was prepared: the end of the ≤3.0 timer, or the 4.0 window's end or lock.
    public var preparedAt: Int64
    /// The last accepted conversion value increase (≤3.0), or registration when there was none.
    public var lastChange: Int64?
    /// Index of the receiving network in the campaign.
    public var network: Int
    /// The privacy tier the install fell in.
    public var tier: Int
    /// Whether a developer copy goes to the advertiser at the same time.
    public var developerCopy: Bool
    /// When the conversion update that set the value this postback carries was made; `nil` when it carries none.
    public var lastUpdateAt: Int64? = nil
    /// When the app was installed (for a re-engagement, when the app was re-opened through the ad).
    public var installAt: Int64 = 0
    /// When the app was first launched (for a re-engagement, the re-open).
    public var launchAt: Int64 = 0
    /// The device's number in the run (its position), which names it in the output and in `--trace`.
    public var device: Int = 0

    /// The SKAdNetwork postback, when it is one.
    public var skadnetwork: Postback? {
        if case .skadnetwork(let postback) = body { postback } else { nil }
    }

    /// The AdAttributionKit postback, when it is one.
    public var adAttributionKit: AAKPostback? {
        if case .adAttributionKit(let postback) = body { postback } else { nil }
    }

    /// The framework whose format the postback has.
    public var framework: Framework {
        switch body {
        case .skadnetwork: .skadnetwork
        case .adAttributionKit: .adAttributionKit
        }
    }

    /// The postback in terms both frameworks share, as the collector stores it (``AttributionFields``): the
    /// window, the values, the dedup id and the rest are read from here, whichever framework the body is.
    public var fields: AttributionFields {
        switch body {
        case .skadnetwork(let postback): AttributionFields(postback)
        case .adAttributionKit(let postback): AttributionFields(postback)
        }
    }

    /// Whether this is the winner's postback.
    public var isWinning: Bool { fields.isWinning }

    /// The install kind the postback reports: before SKAdNetwork's `redownload`, every install is a download.
    public var conversionType: ConversionType { fields.conversionType ?? .download }
}

extension AttributionFields {
    /// Whether these are the winner's postback: before SKAdNetwork 3.0 postbacks had no `did-win`, and only the
    /// winner got one.
    var isWinning: Bool { didWin ?? true }

    /// Whether the postback carries a fine or a coarse value.
    var carriesValue: Bool { conversionValue != nil || coarseValue != nil }
}
