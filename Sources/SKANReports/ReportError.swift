import SKANCore

/// The one error type of `SKANReports` (SKANCore's `DomainError` shape: a code and a reason naming the input at
/// fault).
public typealias ReportError = DomainError<ReportErrorDomain>

/// The domain of ``ReportError``.
public enum ReportErrorDomain: ErrorDomain {}

extension DomainError.Code where Domain == ReportErrorDomain {
    /// A `--by` field SKANKit does not know.
    public static let unknownField = Self("unknown-field")
    /// A `--from`/`--to` date that is not `YYYY-MM-DD`, or a range that ends before it starts.
    public static let invalidDate = Self("invalid-date")
    /// A conversion value schema file with a bad header, row or value.
    public static let invalidSchema = Self("invalid-schema")
    /// The database could not be read.
    public static let database = Self("database")
    /// The output could not be written.
    public static let output = Self("output")
}
