import Foundation
import SKANStore

/// The SQLite engine as a program chooses it: a location is a file path, any path that no other engine claims.
/// A collector, reports beside it and a signer may share one file (WAL mode).
public struct SQLiteEngine: StorageEngine {
    /// The engine.
    public init() {}

    public var name: String { "SQLite" }

    /// Every path: list this engine after the engines that claim a URL scheme.
    public func claims(_ location: String) -> Bool { true }

    public func display(_ location: String) throws(StoreError) -> String { location }

    /// The database, its write-ahead log, its shared memory and its rollback journal, and the same of its rollups file.
    public func protectedFiles(_ location: String) -> [String] {
        [location, SQLiteRollupFolder.rollupsPath(for: location)].flatMap { file in
            ["", "-wal", "-shm", "-journal"].map { file + $0 }
        }
    }

    public func openStore(_ location: String, options: StoreOptions) throws(StoreError) -> any PostbackStore {
        let durability: SQLiteDurability = switch options.durability {
        case .normal: .normal
        case .full: .full
        }
        return try SQLitePostbackStore(path: location, durability: durability, rejectionCap: options.rejectionCap)
    }

    /// Read-only, so reports can run beside a live collector; a file that is not there is refused rather than made.
    public func openReader(_ location: String) async throws(StoreError) -> any PostbackReader {
        guard FileManager.default.fileExists(atPath: location) else {
            throw StoreError(.noDatabase, "no database at \(location)")
        }
        return try SQLitePostbackReader(path: location)
    }

    public func openWebAdStore(_ location: String) throws(StoreError) -> any WebAdStore {
        try SQLiteWebAdStore(path: location)
    }

    public func openCampaignMapStore(_ location: String) throws(StoreError) -> any CampaignMapStore {
        try SQLiteCampaignMapStore(path: location)
    }

    public func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) {
        SQLitePostbackReader.statement(for: query)
    }
}
