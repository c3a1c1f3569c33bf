/// A store with long-running work of its own while it is open (a PostgreSQL pool's connections and the calls it
/// runs), run by whoever hosts the store, never by a task of the engine's (DESIGN.md §3): a process's service group
/// runs it as a resource that stops after the store's close, a command or a test runs it beside its work with
/// ``StoreHost/running(_:_:)``.
///
/// Every store kind is one (``PostbackStore``, ``PostbackReader``, ``WebAdStore``, ``CampaignMapStore``); an engine
/// with nothing to run keeps the default, which returns at once.
public protocol HostedStore: Sendable {
    /// Runs the store's work until the store closes or the task is cancelled; returns at once when there is nothing
    /// to run, or when another host already runs it. Calls made before a host runs it wait for one, within their
    /// deadline.
    func run() async
}

extension HostedStore {
    /// Nothing to run.
    public func run() async {}
}

/// The scoped host of stores used outside a service group (`skan report`, `skan ingest`, tests).
public enum StoreHost {
    /// Runs each store's work (``HostedStore/run()``) while `body` runs, and stops it once `body` returns or throws.
    /// Closing the stores is `body`'s: a store still open afterwards answers every call with `closed`.
    ///
    /// ```swift
    /// let store = try engine.openStore(location, options: StoreOptions())
    /// let outcomes = try await StoreHost.running([store]) {
    ///     try await store.migrate()
    ///     let outcomes = try await store.write(entries)
    ///     try await store.close()
    ///     return outcomes
    /// }
    /// ```
    public static func running<Result: Sendable>(_ stores: [any HostedStore],
                                                 _ body: () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores { group.addTask { await store.run() } }
            defer { group.cancelAll() }
            return try await body()
        }
    }
}
