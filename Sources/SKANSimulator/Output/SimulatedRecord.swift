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
        line.reserveCapacity(postback.count + 160)
        line += Array("{\"send-at\":\"\(SimulatedTime.iso8601(sendAt))\",\"send-at-ms\":\(sendAt),\"destination\":".utf8)
        line += Array(SKANJSON.quoted(destination).utf8)
        line += Array(",\"recipient\":\"\(recipient.rawValue)\",\"postback\":".utf8)
        line += postback
        line += Array("}\n".utf8)
        return line
    }
}
