/// An in-app event: how likely a launched user does it, when, and what it earns.
public struct FunnelEvent: Sendable, Decodable {
    /// The name conversion rules refer to.
    public var name: String
    /// The chance a device that launched the app does this.
    public var probability: Double
    /// Hours after first launch, drawn uniformly.
    public var delayHours: ClosedRange<Double>
    /// Revenue in the app's currency, drawn uniformly (0 when absent).
    public var revenue: ClosedRange<Double>

    enum CodingKeys: String, CodingKey {
        case name, probability, revenue, delayHours = "delay-hours"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        probability = try c.decodeRate(forKey: .probability, in: 0...1, default: nil)
        delayHours = try c.decodeRange(Double.self, forKey: .delayHours, within: 0...24 * 400)
        revenue = c.contains(.revenue) ? try c.decodeRange(Double.self, forKey: .revenue, within: 0...1_000_000) : 0...0
    }
}
