/// The one error type of `SKANCollector`: a stable ``code`` and a human ``reason``.
///
/// Nothing a client sends becomes a `CollectorError`: bad input is a reply (``PostbackReply``). This is thrown
/// only when the collector itself cannot go on, such as a port it cannot bind.
public struct CollectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is, stable across releases.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The configuration cannot work (an empty route path, a zero body limit).
        public static let invalidConfiguration = Code("invalid-configuration")
        /// The HTTP server or the writer stopped with an error.
        public static let serviceFailed = Code("service-failed")

        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence for a person.
    public let reason: String

    /// Makes an error from its code and reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
