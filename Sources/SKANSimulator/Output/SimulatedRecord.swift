import SKANCore

/// One postback on its way: when it leaves the device, where to, and its exact wire bytes.
public struct SimulatedRecord: Sendable, Hashable {
    /// Who receives it.
    public enum Recipient: String, Sendable, Hashable {
        /// The ad network's registered postback URL.
        case adNetwork = "ad-network"
        /// The advertiser's copy of a winning postback.
        case developer
    }

    /// Send time, milliseconds since 1970 on the simulated clock.
    public var sendAt: Int64
    /// The URL the device posts to.
    public var destination: String
    /// Who receives it.
    public var recipient: Recipient
    /// The postback JSON exactly as it goes on the wire.
    public var postback: [UInt8]
    /// The device that sent it: its number in the run, unique within the run.
    public var device: Int
    /// When the app was installed.
    public var installedAt: Int64
    /// When the app was first launched.
    public var launchedAt: Int64
    /// When the device prepared the postback: the ≤3.0 timer's expiry, or the 4.0 window's end or lock.
    public var preparedAt: Int64
    /// When the conversion update that set the value the postback carries was made; `nil` when it carries none.
    public var lastUpdateAt: Int64?
    /// The install's privacy tier 0...3 (spec §3.3), which decided the fields the postback keeps.
    public var tier: Int

    /// A record; the device's story defaults to zeros for records made by hand (tests, tools).
    public init(sendAt: Int64, destination: String, recipient: Recipient, postback: [UInt8], device: Int = 0,
                installedAt: Int64 = 0, launchedAt: Int64 = 0, preparedAt: Int64 = 0, lastUpdateAt: Int64? = nil,
                tier: Int = 0) {
        self.sendAt = sendAt
        self.destination = destination
        self.recipient = recipient
        self.postback = postback
        self.device = device
        self.installedAt = installedAt
        self.launchedAt = launchedAt
        self.preparedAt = preparedAt
        self.lastUpdateAt = lastUpdateAt
        self.tier = tier
    }

    /// The JSON line of `--out`: an envelope `skan verify` reads, metadata beside the postback, never inside it.
    public var envelopeLine: [UInt8] {
        var line: [UInt8] = []
        appendEnvelopeLine(to: &line)
        return line
    }

    /// Appends ``envelopeLine`` to a buffer without building strings (it runs for every output line).
    public func appendEnvelopeLine(to line: inout [UInt8]) {
        // The fixed parts are static strings, copied whole: a `String`'s UTF-8 view goes in a byte at a time.
        func literal(_ text: StaticString) { text.withUTF8Buffer { line.append(contentsOf: $0) } }
        literal(#"{"send-at":""#)
        SimulatedTime.appendISO8601(sendAt, to: &line)
        literal(#"","send-at-ms":"#)
        JSONWriter.appendInteger(sendAt, to: &line)
        literal(#","destination":"#)
        JSONWriter.appendQuoted(destination, to: &line)
        literal(#","recipient":""#)
        switch recipient {
        case .adNetwork: literal("ad-network")
        case .developer: literal("developer")
        }
        literal(#"","device":"#)
        JSONWriter.appendInteger(Int64(device), to: &line)
        literal(#","installed-at":""#)
        SimulatedTime.appendISO8601(installedAt, to: &line)
        literal(#"","launched-at":""#)
        SimulatedTime.appendISO8601(launchedAt, to: &line)
        literal(#"","prepared-at":""#)
        SimulatedTime.appendISO8601(preparedAt, to: &line)
        if let lastUpdateAt {
            literal(#"","last-update-at":""#)
            SimulatedTime.appendISO8601(lastUpdateAt, to: &line)
            literal(#"","tier":"#)
        } else {
            literal(#"","last-update-at":null,"tier":"#)
        }
        JSONWriter.appendInteger(Int64(tier), to: &line)
        literal(#","postback":"#)
        line += postback
        literal("}\n")
    }
}
