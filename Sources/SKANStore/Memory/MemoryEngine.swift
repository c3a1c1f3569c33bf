import Synchronization

/// The memory engine as a program chooses it: a location is `memory:` and a name, and every open of one name in
/// this engine value reaches the same stores, so that a store written and a reader opened later see the same rows.
/// Nothing survives the process. For tests, and the reference the reader conformance suite holds the SQL engines to.
public final class MemoryEngine: StorageEngine {
    private struct Stores {
        var postbacks: [String: MemoryPostbackStore] = [:]
        var webAds: [String: MemoryWebAdStore] = [:]
        var campaignMaps: [String: MemoryCampaignMapStore] = [:]
    }

    private let stores = Mutex(Stores())

    /// An engine with no stores yet.
    public init() {}

    public var name: String { "memory" }

    /// `memory:` and a name.
    public func claims(_ location: String) -> Bool { location.hasPrefix("memory:") }

    public func display(_ location: String) throws(StoreError) -> String { location }

    public func protectedFiles(_ location: String) -> [String] { [] }

    /// The store of that name, made on first open with `options`' cap (later opens share it as it is).
    public func openStore(_ location: String, options: StoreOptions) throws(StoreError) -> any PostbackStore {
        stores.withLock { stores in
            if let store = stores.postbacks[location] { return store }
            let store = MemoryPostbackStore(rejectionCap: options.rejectionCap)
            stores.postbacks[location] = store
            return store
        }
    }

    public func openReader(_ location: String) async throws(StoreError) -> any PostbackReader {
        guard let store = stores.withLock({ $0.postbacks[location] }) else {
            throw StoreError(.noDatabase, "no store at \(location)")
        }
        return MemoryPostbackReader(store)
    }

    public func openWebAdStore(_ location: String) throws(StoreError) -> any WebAdStore {
        stores.withLock { stores in
            if let store = stores.webAds[location] { return store }
            let store = MemoryWebAdStore()
            stores.webAds[location] = store
            return store
        }
    }

    public func openCampaignMapStore(_ location: String) throws(StoreError) -> any CampaignMapStore {
        stores.withLock { stores in
            if let store = stores.campaignMaps[location] { return store }
            let store = MemoryCampaignMapStore()
            stores.campaignMaps[location] = store
            return store
        }
    }

    /// None: the memory engine answers in Swift, not SQL.
    public func statement(for query: AggregateQuery) -> (sql: String, arguments: [String]) { ("", []) }
}
