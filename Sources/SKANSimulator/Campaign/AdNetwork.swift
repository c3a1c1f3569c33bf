/// An ad network: its id, its impression keys and where its postbacks go.
public struct AdNetwork: Sendable, Decodable {
    /// The registered id, lowercase.
    public var id: String
    /// PEM private key that signs its impressions (path relative to the campaign file), P-256 or P-192.
    public var privateKey: String
    /// PEM public key devices check impressions with, on the private key's curve.
    public var publicKey: String
    /// The postback URL the network registered with Apple.
    public var postbackURL: String

    enum CodingKeys: String, CodingKey {
        case id, privateKey = "private-key", publicKey = "public-key", postbackURL = "postback-url"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        if id.isEmpty || id != id.lowercased() {
            throw c.invalid(.id, "a lowercase ad network id such as \"example123.skadnetwork\", got \"\(id)\"")
        }
        privateKey = try c.decode(String.self, forKey: .privateKey)
        publicKey = try c.decode(String.self, forKey: .publicKey)
        postbackURL = try c.decode(String.self, forKey: .postbackURL)
        if !postbackURL.hasPrefix("https://") && !postbackURL.hasPrefix("http://") {
            throw c.invalid(.postbackURL, "an http(s):// URL, got \"\(postbackURL)\"")
        }
    }
}
