/// The one error type of `SKANCore`, in the shape of swift-certificates' `CertificateError`:
/// a stable ``code`` to branch on and a human ``reason`` that names the input, the value and what was expected.
///
/// Expected outcomes of verification (a bad signature, a malformed postback) are *not* errors; they are
/// ``PostbackVerdict`` values. This type is thrown only where a caller cannot go on: a key file that
/// does not hold a usable key, an impression that cannot be signed as given.
public struct SKANError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is, stable across releases.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A key file or string holds no key SKANKit can read.
        public static let unreadableKey = Code("unreadable-key")
        /// A key is on a curve SKAdNetwork does not use (secp256k1 is the usual mistake).
        public static let unsupportedCurve = Code("unsupported-curve")
        /// A private key was needed and only a public key was found.
        public static let notAPrivateKey = Code("not-a-private-key")
        /// An impression's fields break the rules of its signature version.
        public static let invalidImpression = Code("invalid-impression")
        /// The cryptographic library failed in a way that is not about the input.
        public static let cryptoFailure = Code("crypto-failure")

        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence for a person: which input, what was found, what was expected.
    public let reason: String

    /// Makes an error from its code and reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
