import SKANCore

/// The one error type of `SKANCollector` (SKANCore's `DomainError` shape: a code and a reason).
///
/// Nothing a client sends becomes a `CollectorError`: bad input is a reply (``PostbackReply``). This is thrown
/// only when the collector itself cannot go on, such as a port it cannot bind.
public typealias CollectorError = DomainError<CollectorErrorDomain>

/// The domain of ``CollectorError``.
public enum CollectorErrorDomain: ErrorDomain {}

extension DomainError.Code where Domain == CollectorErrorDomain {
    /// The configuration cannot work (an empty route path, a zero body limit).
    public static let invalidConfiguration = Self("invalid-configuration")
    /// The HTTP server or the writer stopped with an error.
    public static let serviceFailed = Self("service-failed")
}
