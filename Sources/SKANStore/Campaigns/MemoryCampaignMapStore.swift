import SKANCore
import Synchronization

/// The campaign map in memory: for tests, and the reference the SQL engines are held to.
public final class MemoryCampaignMapStore: CampaignMapStore {
    private struct State {
        var entries: [CampaignMap.Entry] = []
        var imports: [CampaignMapImport.Record] = []
    }

    private let state = Mutex(State())

    /// An empty map.
    public init() {}

    public func migrate() async throws(StoreError) {}

    public func replace(_ imported: CampaignMapImport) async throws(StoreError) -> CampaignMapImport.Outcome {
        let networks = Set(imported.networks)
        return state.withLock { state in
            let before = state.entries.count
            state.entries.removeAll { networks.contains($0.network) }
            let removed = before - state.entries.count
            state.entries += imported.entries
            state.imports.append(CampaignMapImport.Record(
                importedAt: Timestamp.iso8601(imported.importedAt), source: imported.source,
                networks: imported.networks.joined(separator: ","), rows: imported.entries.count))
            return CampaignMapImport.Outcome(added: imported.entries.count, removed: removed)
        }
    }

    public func entries() async throws(StoreError) -> [CampaignMap.Entry] {
        CampaignMapTable.sorted(state.withLock { $0.entries })
    }

    public func imports() async throws(StoreError) -> [CampaignMapImport.Record] {
        state.withLock { $0.imports }
    }

    public func close() async {}
}
