/// One storage engine as a program chooses it at run time: the one value an engine's target exports, which opens
/// what a location names (the postbacks store, its read side, the web-ad store), renders the engine's SQL, and
/// names the files no output may overwrite.
///
/// A program holds a list of engines and asks each in turn whether it ``claims(_:)`` a location (what `--db` says),
/// so that it tells engines apart in one place and links only the engines it lists: the neutral layers above the
/// store (reports, the signer, the dashboard) take what an engine opened and never name one.
public protocol StorageEngine: Sendable {
    /// What messages call the engine.
    var name: String { get }

    /// Whether `location` is one of this engine's (a URL scheme, or, for a file engine, any path).
    func claims(_ location: String) -> Bool

    /// `location` as messages and logs may show it (a URL without its password). Throws ``StoreError`` when the
    /// engine cannot read it, before anything is opened.
    func display(_ location: String) throws(StoreError) -> String

    /// The files at `location` that no output may be written over: a database file and the files its engine keeps
    /// beside it. Empty for a server, whose data is not on this machine's paths.
    func protectedFiles(_ location: String) -> [String]

    /// The postbacks store at `location`, its schema not yet touched: a collector migrates it before it serves.
    func openStore(_ location: String, options: StoreOptions) throws(StoreError) -> any PostbackStore

    /// The read side at `location`, for reports, exports and the dashboard. Throws ``StoreError`` coded
    /// `no-database` when nothing is there, and `not-collector-database` when a collector did not make what is.
    func openReader(_ location: String) async throws(StoreError) -> any PostbackReader

    /// The store of registered web ads at `location`, its schema not yet touched.
    func openWebAdStore(_ location: String) throws(StoreError) -> any WebAdStore

    /// The campaign map at `location` (`skan campaigns`), its schema not yet touched: an import migrates it first,
    /// a report reads it as it is.
    func openCampaignMapStore(_ location: String) throws(StoreError) -> any CampaignMapStore

    /// The statement a report's aggregate runs on this engine, with its arguments, without a database: what
    /// `skan report --print-sql` shows.
    func statement(for query: AggregateQuery) -> (sql: String, arguments: [String])
}

extension StorageEngine {
    /// The first of `engines` that claims `location`, or `nil`.
    public static func first(of engines: [any StorageEngine], claiming location: String) -> (any StorageEngine)? {
        engines.first { $0.claims(location) }
    }
}

/// How a store is opened: what a collector's operator chooses, in terms every engine reads its own way.
public struct StoreOptions: Sendable, Hashable {
    /// What a commit must survive.
    public var durability: Durability
    /// How much refused traffic is kept.
    public var rejectionCap: RejectionCap

    /// Options with every commit surviving power loss, and the default cap.
    public init(durability: Durability = .full, rejectionCap: RejectionCap = RejectionCap()) {
        self.durability = durability
        self.rejectionCap = rejectionCap
    }
}

/// What a committed write survives, for an engine that lets its user choose (a file engine); a server engine commits
/// as its own settings say and ignores it.
public enum Durability: String, Sendable, Hashable, CaseIterable {
    /// The process dying (a crash, SIGKILL), not the machine losing power before the engine next syncs.
    case normal
    /// Power loss too: the engine syncs every commit (once per batch under group commit).
    case full
}
