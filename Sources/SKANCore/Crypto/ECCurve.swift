/// The two elliptic curves SKAdNetwork signs with.
public enum ECCurve: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// prime192v1 / secp192r1: Apple's postback key for versions 1.0 and 2.0 (verified through OpenSSL).
    case p192 = "P-192"
    /// prime256v1 / secp256r1: Apple's key from 2.1, and every ad network's impression key (swift-crypto).
    case p256 = "P-256"

    /// The OpenSSL group name, as `openssl ecparam -name` takes it.
    public var openSSLName: String {
        switch self {
        case .p192: "prime192v1"
        case .p256: "prime256v1"
        }
    }

    public var description: String { rawValue }
}
