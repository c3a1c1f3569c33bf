/// Periodic work an engine needs beside its writes (PostgreSQL's refusal cap), run by whoever hosts the store: a
/// process's service group runs it as a worker (the collector adds it), a command runs it beside its writer
/// (``running(_:failed:_:)``). The engine itself starts no task for it, so the work stops when its host stops, in
/// the host's shutdown order (DESIGN.md §3: services composed once).
public struct StoreJob: Sendable {
    /// What the job does, for logs.
    public let name: String
    /// How long between the end of one step and the start of the next.
    public let interval: Duration
    /// One step of the job.
    public let step: @Sendable () async throws(StoreError) -> Void

    /// A job that runs `step` every `interval`.
    public init(_ name: String, every interval: Duration, step: @escaping @Sendable () async throws(StoreError) -> Void) {
        self.name = name
        self.interval = interval
        self.step = step
    }

    /// Runs a step every ``interval`` until the task is cancelled; a failed step goes to `failed` (the host logs
    /// it), and the next one runs.
    public func run(failed: @Sendable (StoreJob, StoreError) -> Void) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            do throws(StoreError) {
                try await step()
            } catch {
                failed(self, error)
            }
        }
    }

    /// Runs `jobs` while `body` runs, and stops them once it returns or throws: for a command that uses a store
    /// without a service group (`skan ingest`).
    public static func running<Result: Sendable>(_ jobs: [StoreJob], failed: @escaping @Sendable (StoreJob, StoreError) -> Void,
                                       _ body: () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for job in jobs { group.addTask { await job.run(failed: failed) } }
            defer { group.cancelAll() }
            return try await body()
        }
    }
}

/// A store whose engine has periodic work (``StoreJob``) for its host to run.
public protocol PeriodicStoreWork: Sendable {
    /// The jobs to run while the store is open.
    var jobs: [StoreJob] { get }
}

extension PostbackStore {
    /// The engine's periodic jobs for its host to run (``StoreJob``); none for most engines.
    public var periodicJobs: [StoreJob] { (self as? any PeriodicStoreWork)?.jobs ?? [] }
}
