/// Where the collector keeps postbacks. Each engine target conforms, and its ``StorageEngine`` opens one; another
/// engine can stand beside them by conforming to this protocol.
///
/// The collector calls ``write(_:)`` from one writer at a time (``GroupCommitWriter``), so an engine need not
/// serialise writes itself; reads may come from any thread at any time.
public protocol PostbackStore: HostedStore {
    /// Brings the schema up to date before the first write: a no-op when it is. Several processes may call it
    /// on one database at once; the engine makes sure the migrations run once. The collector runs it before its
    /// server starts.
    func migrate() async throws(StoreError)

    /// Writes a batch in one transaction and returns one outcome per entry, in order, once the batch is durable.
    /// Throws ``StoreError`` when nothing of the batch was kept.
    func write(_ entries: [StoreEntry]) async throws(StoreError) -> [StoreOutcome]

    /// Every stored postback with this transaction id (several networks or sequence indexes may share one).
    func postbacks(transactionID: String) async throws(StoreError) -> [StoredPostback]

    /// Counts of what the store holds.
    func stats() async throws(StoreError) -> StoreStats

    /// Whether the store can take and serve postbacks now: `nil` when it can, else what is wrong. Cheap enough
    /// for a health check every few seconds.
    func health() async -> StoreError?

    /// Closes the store; later calls fail.
    func close() async throws(StoreError)

    /// Where ``GroupCommitWriter`` runs its writes, when the engine prefers a place (an engine whose client answers
    /// on an event loop of its own saves a thread hop per round trip there); `nil`, the default, runs them on the
    /// shared concurrency pool, which an engine that blocks in its writes needs.
    var writerExecutor: (any TaskExecutor)? { get }
}

extension PostbackStore {
    /// No preference: the shared concurrency pool.
    public var writerExecutor: (any TaskExecutor)? { nil }
}
