import SKANCore

/// The one error type of `SKANRelay` (SKANCore's `DomainError` shape: a code and a reason).
public typealias RelayError = DomainError<RelayErrorDomain>

/// The domain of ``RelayError``.
public enum RelayErrorDomain: ErrorDomain {}

extension DomainError.Code where Domain == RelayErrorDomain {
    /// The relay configuration is unreadable or wrong; the reason names the destination and the field.
    public static let invalidConfiguration = Self("invalid-relay-configuration")
    /// The store in use keeps no outbox.
    public static let noOutbox = Self("no-outbox")
}
