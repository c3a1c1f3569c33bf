import SKANCore

/// The one error type of `SKANRelay` (SKANCore's `DomainError` shape: a code and a reason).
public typealias RelayError = DomainError<RelayErrorDomain>

/// The domain of ``RelayError``.
public enum RelayErrorDomain: ErrorDomain {}

extension DomainError.Code where Domain == RelayErrorDomain {
    /// The relay configuration is unreadable or wrong; the reason names the destination and the field.
    public static let invalidConfiguration = Self("invalid-relay-configuration")
    /// A replay's days are not days, or not in order.
    public static let invalidReplay = Self("invalid-replay")
    /// The store in use keeps no outbox.
    public static let noOutbox = Self("no-outbox")
}
