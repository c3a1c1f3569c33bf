/// The one error type of `SKANReports`: a stable ``code`` and a ``reason`` naming the input at fault.
public struct ReportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A `--by` field SKANKit does not know.
        public static let unknownField = Code("unknown-field")
        /// A `--from`/`--to` date that is not `YYYY-MM-DD`, or a range that ends before it starts.
        public static let invalidDate = Code("invalid-date")
        /// A conversion value schema file with a bad header, row or value.
        public static let invalidSchema = Code("invalid-schema")
        /// The database could not be read.
        public static let database = Code("database")
        /// The output could not be written.
        public static let output = Code("output")

        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence naming the field, the value and what was expected.
    public let reason: String

    /// Makes an error.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
