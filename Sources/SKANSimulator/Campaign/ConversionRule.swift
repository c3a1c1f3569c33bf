import SKANCore

/// One line of the conversion value schema: when an event (and enough total revenue) happens, the app sets
/// these values.
public struct ConversionRule: Sendable, Decodable {
    /// The event that triggers the rule.
    public var event: String
    /// The revenue the device must have reached in total, this event included.
    public var minimumRevenue: Double
    /// The fine value the app sets (0...63 is what devices accept; others are app bugs devices refuse).
    public var fine: Int?
    /// The coarse value the app sets (4.0).
    public var coarse: CoarseValue?
    /// Whether the app locks the current window (4.0 `lockWindow`).
    public var lock: Bool

    enum CodingKeys: String, CodingKey {
        case event, fine, coarse, lock, minimumRevenue = "min-revenue"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        event = try c.decode(String.self, forKey: .event)
        minimumRevenue = try c.decodeRate(forKey: .minimumRevenue, in: 0...1_000_000_000, default: 0)
        fine = try c.decodeIfPresent(Int.self, forKey: .fine)
        coarse = try c.decodeIfPresent(String.self, forKey: .coarse).map { text throws in
            guard let value = CoarseValue(rawValue: text) else { throw c.invalid(.coarse, "one of low, medium, high, got \"\(text)\"") }
            return value
        }
        lock = try c.decodeIfPresent(Bool.self, forKey: .lock) ?? false
        if fine == nil && coarse == nil { throw c.invalid(.fine, "a fine or a coarse value (the rule sets neither)") }
    }
}
