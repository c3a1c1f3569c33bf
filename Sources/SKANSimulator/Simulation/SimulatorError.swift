/// The one error type of `SKANSimulator`, shaped like `SKANError`: a stable ``code`` and a ``reason`` that
/// names the file, the JSON path of the bad field and what was expected.
public struct SimulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The campaign file cannot be read, or a field in it is missing or wrong.
        public static let invalidCampaign = Code("invalid-campaign")
        /// A key named by the campaign cannot be read or does not fit its role.
        public static let invalidKey = Code("invalid-key")
        /// Signing, writing or reading the output failed.
        public static let outputFailure = Code("output-failure")

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
