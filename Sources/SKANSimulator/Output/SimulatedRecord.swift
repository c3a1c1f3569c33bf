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

    /// The JSON line of `--out`: an envelope `skan verify` reads, metadata beside the postback, never inside it.
    public var envelopeLine: [UInt8] {
        var line: [UInt8] = []
        appendEnvelopeLine(to: &line)
        return line
    }

    /// Appends ``envelopeLine`` to a buffer without building strings (it runs for every output line).
    public func appendEnvelopeLine(to line: inout [UInt8]) {
        line += #"{"send-at":""#.utf8
        SimulatedTime.appendISO8601(sendAt, to: &line)
        line += #"","send-at-ms":"#.utf8
        JSONWriter.appendInteger(sendAt, to: &line)
        line += #","destination":"#.utf8
        JSONWriter.appendQuoted(destination, to: &line)
        line += #","recipient":""#.utf8
        line += recipient.rawValue.utf8
        line += #"","postback":"#.utf8
        line += postback
        line += "}\n".utf8
    }
}
