/// Where the simulated Apple private keys are.
public struct AppleKeys: Sendable, Decodable {
    /// P-256, for postbacks 2.1 and later.
    public var p256: String
    /// P-192, for postbacks 1.0 and 2.0.
    public var p192: String
    /// P-256, for AdAttributionKit postbacks (ES256); required when the campaign has AdAttributionKit ads.
    public var aak: String?
    /// The JWS `kid` AdAttributionKit postbacks carry, which `skan verify --aak-key KID=FILE` trusts. Default
    /// `simulated-apple-aak/0`: never one of Apple's kids, so Apple's keys never verify simulated postbacks.
    public var aakKid: String

    enum CodingKeys: String, CodingKey {
        case p256, p192, aak, aakKid = "aak-kid"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        p256 = try c.decode(String.self, forKey: .p256)
        p192 = try c.decode(String.self, forKey: .p192)
        aak = try c.decodeIfPresent(String.self, forKey: .aak)
        aakKid = try c.decodeIfPresent(String.self, forKey: .aakKid) ?? "simulated-apple-aak/0"
        if aakKid.isEmpty || aakKid.hasPrefix("apple-") {
            throw c.invalid(.aakKid, "a kid of your own such as \"simulated-apple-aak/0\" (not empty, not one of Apple's), got \"\(aakKid)\"")
        }
    }
}
