/// The one error shape of every SKANKit module, in the manner of swift-certificates' `CertificateError`: a stable
/// ``code`` to branch on and a human ``reason`` that names the input, the value and what was expected.
///
/// Each module names its own ``ErrorDomain``, so that its error is a type of its own (`StoreError`,
/// `ReportError`, ...) for typed throws and `catch`, and defines its codes as static members of
/// `DomainError.Code` constrained to that domain. The shape is written once, here.
public struct DomainError<Domain: ErrorDomain>: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is, stable across releases.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        /// A code named `name` (kebab-case): a module declares its codes once, as static members.
        public init(_ name: String) { self.name = name }

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

/// A module's error domain: a caseless enum that only gives the module's ``DomainError`` a type of its own.
public protocol ErrorDomain: Sendable {}
