/// The two elliptic curves SKAdNetwork signs with: Apple's postback keys use both, and so do ad networks'
/// impression keys (P-256 as Apple asks today, P-192 for networks that registered in mid-2020; spec §1).
public enum ECCurve: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// prime192v1 / secp192r1: Apple's postback key for versions 1.0 and 2.0, and the impression key of networks
    /// that registered in mid-2020 (both verified through OpenSSL).
    case p192 = "P-192"
    /// prime256v1 / secp256r1: Apple's key from 2.1, and the impression key Apple asks ad networks for (swift-crypto).
    case p256 = "P-256"

    /// The OpenSSL group name, as `openssl ecparam -name` takes it.
    public var openSSLName: String {
        switch self {
        case .p192: "prime192v1"
        case .p256: "prime256v1"
        }
    }

    /// The length in bytes of the group order, so of each of a signature's two integers: 24 or 32.
    var scalarByteCount: Int {
        switch self {
        case .p192: 24
        case .p256: 32
        }
    }

    public var description: String { rawValue }
}
