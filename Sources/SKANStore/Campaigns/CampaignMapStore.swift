import Foundation
import SKANCore

/// The campaign map a fleet shares (`skan campaigns import`): what each network's campaign numbers meant over time,
/// kept in the store beside the postbacks so that every report, dashboard and relay of the fleet reads one map. Its
/// own table and protocol, beside the postbacks table's owner, like the web-ad store.
///
/// An import **replaces** what the store holds for the networks it names, in one transaction: a network's file is
/// its whole map (its dated periods carry the history), so importing a corrected file never leaves a stale row
/// behind, and a reader sees the map before or after an import, never a mix. Networks the file does not name keep
/// their rows. Each import is recorded (when, from where, how many rows) for `skan campaigns list`.
public protocol CampaignMapStore: HostedStore {
    /// Brings the store's schema up to date (the same numbered migrations as the postbacks store).
    func migrate() async throws(StoreError)
    /// Replaces every stored entry of the networks `imported` names with its entries, in one transaction.
    @discardableResult
    func replace(_ imported: CampaignMapImport) async throws(StoreError) -> CampaignMapImport.Outcome
    /// Every stored entry, by network, then number, then period; empty when nothing was imported.
    func entries() async throws(StoreError) -> [CampaignMap.Entry]
    /// The imports recorded, oldest first.
    func imports() async throws(StoreError) -> [CampaignMapImport.Record]
    /// Lets go of the engine's connections.
    func close() async
}

/// One import of a campaign map: the entries of the networks it names, checked already (``CampaignMap`` refuses
/// overlapping periods), and where they came from.
public struct CampaignMapImport: Sendable, Hashable {
    /// The entries, each with its origin (`file.csv:3`).
    public var entries: [CampaignMap.Entry]
    /// What the import was read from, as messages show it.
    public var source: String
    /// When it was imported.
    public var importedAt: Date

    /// An import of `map`'s entries.
    public init(_ map: CampaignMap, source: String, importedAt: Date) {
        self.init(entries: map.entries, source: source, importedAt: importedAt)
    }

    /// An import of `entries`.
    public init(entries: [CampaignMap.Entry], source: String, importedAt: Date) {
        self.entries = entries
        self.source = source
        self.importedAt = importedAt
    }

    /// The networks the import names, sorted: the ones whose stored rows it replaces.
    public var networks: [String] { Set(entries.map(\.network)).sorted() }

    /// What an import did.
    public struct Outcome: Sendable, Hashable {
        /// Rows stored.
        public var added: Int
        /// Rows of the same networks it replaced.
        public var removed: Int

        public init(added: Int, removed: Int) {
            self.added = added
            self.removed = removed
        }
    }

    /// An import as the store recorded it.
    public struct Record: Sendable, Hashable {
        /// When, ISO 8601 UTC.
        public var importedAt: String
        /// From where.
        public var source: String
        /// The networks it replaced, comma-separated.
        public var networks: String
        /// Rows stored.
        public var rows: Int

        public init(importedAt: String, source: String, networks: String, rows: Int) {
            self.importedAt = importedAt
            self.source = source
            self.networks = networks
            self.rows = rows
        }
    }
}
