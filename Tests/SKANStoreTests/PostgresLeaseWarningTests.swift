import Foundation
import Logging
import SKANStore
import SKANStorePostgres
import SKANTestSupport
import Synchronization
import Testing

/// Where ``KeptLogHandler`` keeps its lines.
final class KeptLines: Sendable {
    let lines = Mutex<[String]>([])
}

/// A log handler that keeps every message, for tests that look for a line.
struct KeptLogHandler: LogHandler {
    let kept: KeptLines
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { kept.lines.withLock { $0.append("\(event.message)") } }
}

@Suite("PostgreSQL pool start", .enabled(if: PostgresTestServer.isAvailable, "no PostgreSQL test server (the log says why)"))
struct PostgresLeaseWarningTests {
    @Test("a store opened and used at once never leases a connection before its pool runs")
    func noLeaseBeforeRun() async throws {
        let url = try #require(PostgresTestServer.shared).makeDatabase()
        let kept = KeptLines()
        let keeper = KeptLogHandler(kept: kept)
        let logger = Logger(label: "lease-test") { _ in keeper }
        // Many at once, so that the cooperative pool is busy when each first lease comes: the race this was.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    let configuration = try PostgresStoreConfiguration(url: url)
                    let store = try await PostgresPostbackStore.open(configuration, logger: logger)
                    try await StoreHost.running([store]) {
                        _ = try await store.stats()
                        try await store.close()
                    }
                    let reader = try await PostgresPostbackReader.open(configuration, logger: logger)
                    try await StoreHost.running([reader]) { await reader.close() }
                }
            }
            try await group.waitForAll()
        }
        let warnings = kept.lines.withLock { $0 }.filter { $0.contains("hasn't been called yet") }
        #expect(warnings.isEmpty, "\(warnings.count) lease warnings")
    }
}
