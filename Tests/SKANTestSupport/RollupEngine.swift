import Testing

/// The engines that keep rollups and answer reports from SQL, as a test's argument: SQLite always, PostgreSQL when a
/// test server could be started (``PostgresTestServer/isAvailable``; a suite that needs it says why it is left out).
public enum RollupEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite = "SQLite"
    case postgres = "PostgreSQL"

    public static var allCases: [RollupEngine] { [.sqlite] + (PostgresTestServer.isAvailable ? [.postgres] : []) }

    public var testDescription: String { rawValue }
}
