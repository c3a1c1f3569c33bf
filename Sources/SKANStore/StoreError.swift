/// The one error type of `SKANStore`: a stable ``code`` and a human ``reason``.
///
/// A duplicate or a refused postback is not an error (see ``StoreOutcome``); this is thrown only when the
/// storage itself fails, so the HTTP edge answers 503 and the device retries later.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is, stable across releases.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The database could not be opened or created.
        public static let cannotOpen = Code("cannot-open")
        /// A schema migration failed.
        public static let migrationFailed = Code("migration-failed")
        /// A write transaction failed; nothing of its batch was kept.
        public static let writeFailed = Code("write-failed")
        /// A read failed.
        public static let readFailed = Code("read-failed")
        /// The writer has shut down and takes no more postbacks.
        public static let closed = Code("closed")
        /// The database file at the store's path is no longer the one it opened (removed, or replaced): writes
        /// would go to a file nobody will read again.
        public static let fileReplaced = Code("file-replaced")

        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence for a person: what was being done and what went wrong.
    public let reason: String

    /// Makes an error from its code and reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
