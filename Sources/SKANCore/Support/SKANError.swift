/// The one error type of `SKANCore` (``DomainError``'s shape: a code and a reason).
///
/// Expected outcomes of verification (a bad signature, a malformed postback) are *not* errors; they are
/// ``AttributionVerdict`` values. This type is thrown only where a caller cannot go on: a key file that
/// does not hold a usable key, an impression that cannot be signed as given.
public typealias SKANError = DomainError<CoreErrorDomain>

/// The domain of ``SKANError``.
public enum CoreErrorDomain: ErrorDomain {}

extension DomainError.Code where Domain == CoreErrorDomain {
    /// A key file or string holds no key SKANKit can read.
    public static let unreadableKey = Self("unreadable-key")
    /// A key is on a curve SKAdNetwork does not use (secp256k1 is the usual mistake).
    public static let unsupportedCurve = Self("unsupported-curve")
    /// A private key was needed and only a public key was found.
    public static let notAPrivateKey = Self("not-a-private-key")
    /// An impression's fields break the rules of its signature version.
    public static let invalidImpression = Self("invalid-impression")
    /// The cryptographic library failed in a way that is not about the input.
    public static let cryptoFailure = Self("crypto-failure")
}
