import SKANCore

/// The one error type of `SKANStore` (SKANCore's `DomainError` shape: a code and a reason).
///
/// A duplicate or a refused postback is not an error (see ``StoreOutcome``); this is thrown only when the
/// storage itself fails, so the HTTP edge answers 503 and the device retries later.
public typealias StoreError = DomainError<StoreErrorDomain>

/// The domain of ``StoreError``.
public enum StoreErrorDomain: ErrorDomain {}

extension DomainError.Code where Domain == StoreErrorDomain {
    /// The database could not be opened or created.
    public static let cannotOpen = Self("cannot-open")
    /// A schema migration failed.
    public static let migrationFailed = Self("migration-failed")
    /// A write transaction failed; nothing of its batch was kept.
    public static let writeFailed = Self("write-failed")
    /// Nothing is at the location a reader was asked to open.
    public static let noDatabase = Self("no-database")
    /// The file is a database, but not one the collector made.
    public static let notCollectorDatabase = Self("not-collector-database")
    /// A read failed.
    public static let readFailed = Self("read-failed")
    /// The writer has shut down and takes no more postbacks.
    public static let closed = Self("closed")
    /// The database file at the store's path is no longer the one it opened (removed, or replaced): writes
    /// would go to a file nobody will read again.
    public static let fileReplaced = Self("file-replaced")
}
