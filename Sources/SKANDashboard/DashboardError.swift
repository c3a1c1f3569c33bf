import SKANCore

/// The one error type of `SKANDashboard` (SKANCore's `DomainError` shape: a code and a reason naming the input at
/// fault).
public typealias DashboardError = DomainError<DashboardErrorDomain>

/// The domain of ``DashboardError``.
public enum DashboardErrorDomain: ErrorDomain {}

extension DomainError.Code where Domain == DashboardErrorDomain {
    /// A URL parameter with a value the dashboard does not take (400).
    public static let badParameter = Self("bad-parameter")
    /// The store could not be read (503).
    public static let store = Self("store")
    /// A template or an asset is missing from the installation.
    public static let installation = Self("installation")
    /// A listener bound beyond loopback without a token, or a token file that cannot be used.
    public static let access = Self("access")
}
