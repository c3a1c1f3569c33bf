import SKANStore

/// The PostgreSQL engine as a program chooses it: a location is a `postgres://` or `postgresql://` URL
/// (``PostgresStoreConfiguration/init(url:environment:)``). Its data is on the server, so it protects no files, and
/// it commits as the server's `synchronous_commit` says, whatever ``StoreOptions/durability`` asks.
public struct PostgresEngine: StorageEngine {
    /// The engine.
    public init() {}

    public var name: String { "PostgreSQL" }

    public func claims(_ location: String) -> Bool { PostgresStoreConfiguration.isURL(location) }

    /// The URL without its password.
    public func display(_ location: String) throws(StoreError) -> String {
        try PostgresStoreConfiguration(url: location).redacted
    }

    public func protectedFiles(_ location: String) -> [String] { [] }

    public func openStore(_ location: String, options: StoreOptions) throws(StoreError) -> any PostbackStore {
        PostgresPostbackStore(try PostgresStoreConfiguration(url: location), rejectionCap: options.rejectionCap)
    }

    public func openReader(_ location: String) async throws(StoreError) -> any PostbackReader {
        try await PostgresPostbackReader.open(try PostgresStoreConfiguration(url: location))
    }

    public func openWebAdStore(_ location: String) throws(StoreError) -> any WebAdStore {
        PostgresWebAdStore(try PostgresStoreConfiguration(url: location))
    }

    public func openCampaignMapStore(_ location: String) throws(StoreError) -> any CampaignMapStore {
        PostgresCampaignMapStore(try PostgresStoreConfiguration(url: location))
    }

    public func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) {
        PostgresPostbackReader.statement(for: query)
    }
}
