import SKANCore

/// A postback a device has decided to send, before Apple's signature: what, to whom, and when.
public struct PlannedPostback: Sendable {
    /// The postback, `attribution-signature` still empty.
    public var postback: Postback
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
    /// When the app was installed.
    public var installAt: Int64 = 0
    /// When the app was first launched.
    public var launchAt: Int64 = 0
    /// The device's number in the run (its position), which names it in the output and in `--trace`.
    public var device: Int = 0

    /// Whether this is the winner's postback.
    public var isWinning: Bool { postback.didWin ?? true }
}
